// Start and stop a real `tablewire serve` (and a throwaway redis-server) for the SDK tests.
// TABLEWIRE_BIN names the command (tests/web/test_web_sdk.py passes the venv's); default: PATH.

import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

export async function freePort() {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/** Resolve once `stream` printed a line containing `text`; reject if the process exits. */
function waitFor(child, stream, text, log) {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk) => {
      buffer += chunk;
      log.push(String(chunk));
      if (buffer.includes(text)) {
        stream.off("data", onData);
        resolve();
      }
    };
    stream.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}:\n${log.join("")}`)));
  });
}

export class Server {
  constructor({ port, env = {} } = {}) {
    this.port = port;
    this.env = env;
    this.log = [];
    this.child = null;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    this.port ??= await freePort();
    const bin = process.env.TABLEWIRE_BIN || "tablewire";
    this.child = spawn(bin, ["serve", "--port", String(this.port)], {
      env: { ...process.env, ...this.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.child.stderr.setEncoding("utf8");
    await waitFor(this.child, this.child.stderr, "Uvicorn running", this.log);
    this.child.stderr.resume();
    this.child.removeAllListeners("exit");
    return this;
  }

  async stop(signal = "SIGTERM") {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill(signal);
    await exited;
  }
}

export function haveRedis() {
  return spawnSync("redis-server", ["--version"]).status === 0;
}

export class Redis {
  async start() {
    this.port = await freePort();
    this.child = spawn("redis-server", [
      "--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
    ], { stdio: ["ignore", "pipe", "ignore"] });
    this.child.stdout.setEncoding("utf8");
    await waitFor(this.child, this.child.stdout, "Ready to accept connections", []);
    this.child.stdout.resume();
    this.child.removeAllListeners("exit");
    return this;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** SIGSTOP: a hung Redis, which keeps its connections and answers nothing. */
  pause() {
    this.child.kill("SIGSTOP");
  }

  resume() {
    this.child?.kill("SIGCONT");
  }

  async stop() {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    await exited;
  }
}
