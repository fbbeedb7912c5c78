// mirror.js: the document mirror of the browser SDK (re-exported by tablewire.js).
//
//   applyPatch     the patch semantics of §6 (copy on write), usable on their own.
//   expandOps, readFrame  protocol 2's compact frames (§6.2) in protocol 1's terms.
//   Mirror         a document and its version, kept by snapshots and patches (§7).

const SET = 0;
const REMOVE = 1;
const TRUNCATE = 2;
const EXTEND = 3;

/** A patch op that does not fit the document (§6): the mirror is out of date. */
export class PatchError extends Error {}

export function isMap(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function fits(container, key) {
  if (Array.isArray(container)) return Number.isInteger(key) && key >= 0 && key < container.length;
  return isMap(container) && typeof key === "string" && Object.hasOwn(container, key);
}

/**
 * Apply `ops` (§6) to `doc` and return the new document; `doc` itself is not changed.
 *
 * Copy on write: every map and array on a changed path is copied once per patch, the
 * rest is shared, so an unchanged subtree keeps its identity (cheap re-renders) and an
 * op that does not fit (a PatchError) leaves the caller's document as it was.
 */
export function applyPatch(doc, ops) {
  const fresh = new Set();
  const copy = (value) => {
    if (fresh.has(value)) return value;
    const made = Array.isArray(value) ? value.slice() : { ...value };
    fresh.add(made);
    return made;
  };
  let root = { doc };
  fresh.add(root);
  for (const op of ops) {
    if (!Array.isArray(op) || op.length < 2 || !Array.isArray(op[1])) {
      throw new PatchError(`not an op: ${JSON.stringify(op)}`);
    }
    const [kind, path] = op;
    if (kind === SET && path.length === 0) {
      if (op.length < 3) throw new PatchError("a set without a value");
      root = { doc: op[2] };
      fresh.add(root);
      continue;
    }
    // Walk to the container the op changes, copying each container on the way.
    const steps = kind === SET || kind === REMOVE ? path.slice(0, -1) : path;
    let parent = root;
    let key = "doc";
    for (const step of steps) {
      const container = (parent[key] = copy(parent[key]));
      if (!fits(container, step)) throw new PatchError(`path ${JSON.stringify(path)} not found`);
      parent = container;
      key = step;
    }
    const target = parent[key];
    if (kind === SET || kind === REMOVE) {
      if (op.length < (kind === SET ? 3 : 2)) throw new PatchError(`op ${kind} is too short`);
      const last = path[path.length - 1];
      const container = Array.isArray(target) || isMap(target) ? copy(target) : null;
      if (kind === SET) {
        const settable = Array.isArray(container)
          ? fits(container, last)
          : isMap(container) && typeof last === "string";
        if (!settable) throw new PatchError(`cannot set ${JSON.stringify(path)}`);
        container[last] = op[2];
      } else {
        if (!isMap(container) || !fits(container, last)) {
          throw new PatchError(`no map key to remove at ${JSON.stringify(path)}`);
        }
        delete container[last];
      }
      parent[key] = container;
    } else if (kind === TRUNCATE || kind === EXTEND) {
      if (!Array.isArray(target)) throw new PatchError(`no array at ${JSON.stringify(path)}`);
      const arg = op[2];
      if (kind === TRUNCATE) {
        if (!Number.isInteger(arg) || arg < 0) throw new PatchError(`bad length ${arg}`);
        parent[key] = target.slice(0, arg);
      } else {
        if (!Array.isArray(arg)) throw new PatchError("extend needs an array of items");
        parent[key] = target.concat(arg);
      }
      fresh.add(parent[key]);
    } else {
      throw new PatchError(`unknown op kind ${JSON.stringify(kind)}`);
    }
  }
  return root.doc;
}

/** Protocol 2 (§6.2): a compact path with its key-table references (ints < 0) spelled out. */
function expandPath(keys, path) {
  const out = [];
  for (const step of path) {
    if (Number.isInteger(step) && step < 0) {
      const entry = keys[-1 - step];
      if (!entry) throw new PatchError(`key table reference ${step} of ${keys.length} entries`);
      out.push(...entry);
    } else if (Number.isInteger(step) || typeof step === "string") {
      out.push(step);
    } else {
      throw new PatchError(`path element ${JSON.stringify(step)} is not a key or an index`);
    }
  }
  return out;
}

/** Protocol 2's ops (§6.2) as protocol 1's (§6), given the key table of `welcome.keys`. */
export function expandOps(keys, ops) {
  return ops.map((op) => {
    if (!Array.isArray(op) || op.length === 0) throw new PatchError(`not an op: ${op}`);
    if (op[0] !== null || op.length === 1) {
      return [SET, expandPath(keys, op.slice(0, -1)), op[op.length - 1]];
    }
    const kind = op[1];
    if (kind === REMOVE && op.length > 2) return [REMOVE, expandPath(keys, op.slice(2))];
    if ((kind === TRUNCATE || kind === EXTEND) && op.length > 2) {
      return [kind, expandPath(keys, op.slice(2, -1)), op[op.length - 1]];
    }
    throw new PatchError(`op of no known kind: ${JSON.stringify(op)}`);
  });
}

/**
 * A decoded server frame as a map: protocol 2's array frames (§6.2) become
 * `{t: "patch", from, to, ops}` (ops still compact) and `{t: "ack", id, v}`.
 */
export function readFrame(frame) {
  if (!Array.isArray(frame)) return frame;
  if (frame[0] === 0 && Number.isInteger(frame[1])) {
    return { t: "patch", from: frame[1] - 1, to: frame[1], ops: frame.slice(2) };
  }
  if (frame[0] === 1 && frame.length === 3) return { t: "ack", id: frame[1], v: frame[2] };
  return { t: "unknown" };
}

/**
 * A document and its version, kept by snapshots and patches exactly as §7 says.
 * `patch` answers what to do: "applied", "duplicate", "gap" (resync from the version
 * held) or "misfit" (an op did not fit: resync with a snapshot).
 */
export class Mirror {
  constructor() {
    this.version = null;
    this.doc = null;
    this.keys = null; // protocol 2: welcome.keys, and patches' ops are compact
  }

  snapshot(version, doc) {
    this.version = version;
    this.doc = doc;
  }

  patch(from, to, ops) {
    if (this.version !== null && to <= this.version) return "duplicate";
    if (from !== this.version) return "gap";
    try {
      this.doc = applyPatch(this.doc, this.keys ? expandOps(this.keys, ops) : ops);
    } catch (error) {
      if (error instanceof PatchError) return "misfit";
      throw error;
    }
    this.version = to;
    return "applied";
  }
}
