// Crystal Palace's components and their words, for the board (board.js) and its cards
// (cards.js): the engine's component data, served next to this module as board.json (a
// copy of engines/crystal_palace/data/components.json), indexed by id, and effects,
// costs and goals in words. No drawing here.

const answer = await fetch(new URL("./board.json", import.meta.url));
if (!answer.ok) throw new Error(`the game's data could not be loaded (${answer.status})`);
export const DATA = await answer.json();

export const STEP = " → ";
const byId = (list) => Object.fromEntries(list.map((item) => [item.id, item]));
export const PATENTS = byId(DATA.patents);
export const CHARACTERS = byId(DATA.characters);
export const PUBLISHERS = byId(DATA.publishers);
export const NATIONS = byId(DATA.nations);

/** Research tiles by id, numbered as the engine numbers them: G01…, B01…, O01…. */
export const TILES = (() => {
  const tiles = {};
  for (const [color, prefix] of [["green", "G"], ["blue", "B"], ["orange", "O"]]) {
    let number = 0;
    for (const entry of DATA.research[color]) {
      for (let i = 0; i < entry.count; i++) {
        number += 1;
        tiles[`${prefix}${String(number).padStart(2, "0")}`] = { color, ...entry };
      }
    }
  }
  return tiles;
})();

/** Shares by id: S{season}{a|b|c}. */
export const SHARES = Object.fromEntries(DATA.shares.flatMap((pile, season) =>
  pile.map((share, i) => [`S${season + 1}${"abc"[i]}`, { season, ...share }])));

export const NOUNS = {
  gears: ["gear", "gears"], energy: ["energy", "energy"], newspapers: ["newspaper", "newspapers"],
  income: ["income step", "income steps"], buzz: ["buzz", "buzz"], vp: ["VP", "VP"],
  westminster: ["Westminster step", "Westminster steps"], ticket: ["ticket", "tickets"],
};
export const MEASURES = { characters: "character you own", prototypes: "prototype you have built" };
export const PERMS = {
  prototype_gears: "your prototypes cost {n} gear less",
  prototype_energy: "your prototypes cost {n} energy less",
  prototype_vp: "+{n} VP for each prototype you build",
  salary: "each of your salaries is £{n} less",
  other_salaries: "your other characters' salaries are £{n} less each",
  recruit_vp: "+{n} VP for each character you recruit",
  recruit_cost: "recruiting costs you £{n} less",
  research_vp: "+{n} VP whenever you gain a research tile",
  dice_cost: "your dice cost £{n} less in phase 1",
};
export const PHASES = [
  [1, "set dice"], [2, "place dice"], [3, "take actions"], [4, "salaries and abilities"],
  [5, "build prototypes"], [6, "income and current events"], ["final", "repay loans"],
];
export const ACTIONS = {
  patent: "take a patent", research: "take a research tile", share: "buy a share",
  westminster: "+1 Westminster step and its bonus", character: "recruit a character",
  publisher: "the London Times' publisher", menu: "one unused option",
};
export const GOALS = {
  westminster: "Westminster step {n}", dice: "{n} dice", dice_total: "dice totalling {n}",
  research_immediate: "{n} immediate research tiles", buzz: "{n} buzz",
  characters: "{n} characters", prototypes: "{n} prototypes", resources: "{n} gears and energy",
  market_assistants: "{n} assistants on the Black Market", shares: "{n} shares",
  newspapers: "{n} newspapers",
};
export const SCORES = [
  ["play", "VP during play"], ["loans", "loans"], ["research", "empty research spaces"],
  ["goal", "goal track"], ["buzz_majority", "most buzz"], ["market_majority", "Black Market majority"],
  ["tickets", "tickets"],
];

export function count(key, n) {
  const [one, many] = NOUNS[key];
  return `${n} ${n === 1 ? one : many}`;
}

export function ordinal(n) {
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n] || "th"}`;
}

export function minus(n) {
  return n < 0 ? `−${-n}` : String(n);
}

export function computed(key, raw) {
  const times = raw.times ?? 1;
  let text = `+${key === "money" ? `£${times}` : count(key, times)} per ${MEASURES[raw.per]}`;
  if (raw.plus) text = `+${raw.plus} and ${text.slice(1)}`;
  const bounds = [["min", "at least"], ["max", "at most"]].filter(([b]) => b in raw)
    .map(([b, word]) => `${word} ${raw[b]}`);
  return text + (bounds.length ? ` (${bounds.join(", ")})` : "");
}

/** An effect map in words, costs first: "pay £3: +2 energy, +1 gear". */
export function effectText(effect, harm = "pay") {
  const costs = [];
  const gains = [];
  for (const [key, raw] of Object.entries(effect || {})) {
    if (key === "research") gains.push(`a violet research tile (${raw} box)`);
    else if (typeof raw === "object") gains.push(computed(key, raw));
    else if (key === "dice") (raw > 0 ? gains : costs).push(raw > 0 ? "+1 die (from next round)" : "sell 1 of your dice");
    else if (key === "money") (raw > 0 ? gains : costs).push(raw > 0 ? `+£${raw}` : `${harm} £${-raw}`);
    else if (key === "ticket") gains.push("a ticket");
    else if (raw < 0) costs.push(`${harm} ${count(key, -raw)}`);
    else gains.push(`+${count(key, raw)}`);
  }
  if (costs.length && gains.length) return `${costs.join(", ")}: ${gains.join(", ")}`;
  return [...costs, ...gains].join(", ") || "nothing";
}

export function permText(perm) {
  return Object.entries(perm).map(([key, n]) => PERMS[key].replace("{n}", Math.abs(n))).join(", ");
}

export function tileText(id) {
  const tile = TILES[id];
  if (!tile) return "a research tile";
  if (tile.timing === "PERM") return `always: ${permText(tile.perm)}`;
  return `${tile.timing === "IMM" ? "now" : "each phase 6"}: ${effectText(tile.effect)}`;
}

export function costText(cost) {
  const parts = ["gears", "energy"].filter((k) => cost[k]).map((k) => count(k, cost[k]));
  if (cost.money) parts.push(`£${cost.money}`);
  return parts.join(", ") || "nothing";
}

export function characterDoes(card) {
  return card.perm ? `always: ${permText(card.perm)}` : `each phase 4: ${effectText(card.ability)}`;
}

export function layout(location, players) {
  const entry = DATA.locations[location];
  const side = entry.sides[entry.side_by_players[String(players)]];
  const placement = side.placement.map((text) => {
    const [, min, assistant, fee] = /^(\d)(A?)(?:£(\d+))?$/.exec(text);
    return { min: Number(min), assistant: !!assistant, fee: Number(fee || 0) };
  });
  return { ...side, kind: entry.action, name: entry.name, placement };
}

export function locationOrder(options) {
  const order = [...DATA.location_order];
  if (options && options.port_before_waterloo) {
    const w = order.indexOf("waterloo");
    const p = order.indexOf("port");
    [order[w], order[p]] = [order[p], order[w]];
  }
  return order;
}

/** An action space's bonus, short enough for the space. */
export function bonusText(bonus) {
  if (!Object.keys(bonus).length) return "no bonus";
  if (bonus.research) return `violet tile, ${bonus.research} box`;
  return effectText(bonus);
}

/** What a phase-3 choice does, short enough for a location's card. */
export function choiceText({ action, label }) {
  const ticket = action.type === "ticket" ? "ticket: " : "";
  if (action.type === "decline") return "Decline";
  if (action.type === "compensation") return "Take £1";
  if (action.card) return `${ticket}${(PATENTS[action.card] || CHARACTERS[action.card]).name}`;
  if (action.tile) return `${ticket}${tileText(action.tile)}`;
  if (action.share) return `${ticket}share: pay £${SHARES[action.share].price}: ${effectText(SHARES[action.share].gain)}`;
  return ticket + lastStep(label);
}

export function seatName(doc, seat) {
  return doc.seats[seat] ?? `seat ${seat + 1}`;
}

/** The legal entries whose action has every field of `fields`. */
export function matching(legal, fields) {
  return legal.filter(({ action }) => Object.entries(fields).every(([k, v]) => action[k] === v));
}

export function lastStep(label) {
  const steps = label.split(STEP);
  return steps[steps.length - 1];
}

export function goalText(nation, level) {
  const need = nation.levels[level];
  if (!need) return "all levels reached";
  return Object.entries(need).map(([k, n]) => GOALS[k].replace("{n}", n)).join(" and ");
}
