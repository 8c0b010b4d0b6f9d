// The page: POST the text to /tag and draw each sentence as a grid, one column per token:
// words, POS tags, then chunk / entity / PT0 spans, the parse tree's phrases one row per
// level (the lowest first, as in the paper's Figure 6) and one row per predicate's frame.
"use strict";

const TASKS = [["pos", "POS"], ["chunk", "Chunks"], ["ner", "Entities"], ["pt0", "PT0"],
               ["psg", "Tree"], ["srl", "Roles"]];

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function place(node, row, start, end) {
  // grid column 1 holds the row names; token i is column i + 2
  node.style.gridRow = String(row);
  node.style.gridColumn = `${start + 2} / ${end + 2}`;
  return node;
}

function spanRow(grid, row, name, spans, words, cls) {
  const head = place(el("div", "rowname", name), row, -1, 0);
  grid.append(head);
  for (const {label, start, end} of spans) {
    const box = el("div", `span ${cls(label)}`, label);
    box.title = `${label}: ${words.slice(start, end).join(" ")}`;
    box.dataset.label = label;
    box.dataset.text = words.slice(start, end).join(" ");
    grid.append(place(box, row, start, end));
  }
  return head;
}

function tagSpans(tags) {
  // IOBES tags (as /tag returns them per token) -> [{label, start, end}], end exclusive
  const spans = [];
  let open = null;
  tags.forEach((tag, i) => {
    const [prefix, label] = tag === "O" ? ["O", ""] : [tag[0], tag.slice(2)];
    if (open && (prefix === "B" || prefix === "S" || prefix === "O" || label !== open.label)) {
      spans.push({...open, end: i});
      open = null;
    }
    if (prefix !== "O" && !open) open = {label, start: i};
    if (open && (prefix === "E" || prefix === "S")) {
      spans.push({...open, end: i + 1});
      open = null;
    }
  });
  if (open) spans.push({...open, end: tags.length});
  return spans;
}

function roleClass(label) {
  const core = label.replace(/^[CR]-/, "");
  return "role-" + (core.startsWith("ARGM") ? "ARGM" : core);
}

function treeLevels(text) {
  // a one-line bracket string -> its phrases' [label, start, end] by level: a phrase's
  // level is 0 when its children are all words (under their POS tags), else one more than
  // its highest child's; the TOP root above the sentence is left out
  const tokens = text.match(/\(|\)|[^\s()]+/g) || [];
  const levels = [];
  let pos = 0;
  let leaf = 0;
  function read(root) {
    pos += 1;                      // "("
    const label = tokens[pos++];
    if (tokens[pos] !== "(") {     // (TAG word)
      pos += 2;
      leaf += 1;
      return -1;
    }
    const start = leaf;
    let level = 0;
    while (tokens[pos] === "(") level = Math.max(level, read(false) + 1);
    pos += 1;                      // ")"
    if (root && label === "TOP") return level;
    (levels[level] = levels[level] || []).push([label, start, leaf]);
    return level;
  }
  if (tokens[0] === "(") read(true);
  return levels;
}

function drawSentence(sent) {
  const words = sent.tokens.map((t) => t.text);
  const grid = el("section", "sentence");
  grid.style.gridTemplateColumns = `max-content repeat(${words.length}, max-content)`;
  let row = 1;
  grid.append(place(el("div", "rowname", "Token"), row, -1, 0));
  words.forEach((w, i) => grid.append(place(el("div", "word", w), row, i, i + 1)));
  row += 1;
  if (sent.tokens.length && sent.tokens[0].pos !== undefined) {
    grid.append(place(el("div", "rowname", "POS"), row, -1, 0));
    sent.tokens.forEach((t, i) => grid.append(place(el("div", "tag pos", t.pos), row, i, i + 1)));
    row += 1;
  }
  if (sent.chunks) spanRow(grid, row++, "Chunk", sent.chunks, words, (l) => `chunk label-${l}`);
  if (sent.entities) {
    spanRow(grid, row++, "Entity", sent.entities, words, (l) => `entity label-${l}`);
  }
  if (sent.tokens.length && sent.tokens[0].pt0 !== undefined) {
    spanRow(grid, row++, "PT0", tagSpans(sent.tokens.map((t) => t.pt0)), words,
            (l) => `pt0 label-${l}`);
  }
  if (sent.tree) {
    treeLevels(sent.tree).forEach((phrases, level) => spanRow(
      grid, row++, `Tree ${level}`, phrases.map(([label, start, end]) => ({label, start, end})),
      words, (l) => `phrase label-${l}`));
  }
  for (const frame of sent.predicates || []) {
    const head = spanRow(grid, row++, frame.word, frame.arguments, words,
                         (l) => `role ${roleClass(l)}`);
    head.classList.add("pred");
    head.title = `predicate ${frame.index + 1}: ${frame.word}`;
  }
  return grid;
}

async function tag(event) {
  event.preventDefault();
  const status = document.getElementById("status");
  const result = document.getElementById("result");
  const tasks = [...document.querySelectorAll("#tasks input:checked")].map((i) => i.value);
  status.className = "";
  status.textContent = "tagging…";
  try {
    const reply = await fetch("/tag", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({text: document.getElementById("text").value, tasks}),
    });
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || reply.statusText);
    const sentences = data.documents.flatMap((d) => d.sentences);
    result.replaceChildren(...sentences.map(drawSentence));
    const n = sentences.reduce((a, s) => a + s.tokens.length, 0);
    status.textContent = `${sentences.length} sentence(s), ${n} tokens`;
  } catch (err) {
    status.className = "error";
    status.textContent = `error: ${err.message}`;
  }
}

async function init() {
  const served = (await (await fetch("/health")).json()).tasks;
  const box = document.getElementById("tasks");
  for (const [task, name] of TASKS) {
    if (!served.includes(task)) continue;
    const label = el("label");
    const input = el("input");
    input.type = "checkbox";
    input.id = `task-${task}`;
    input.checked = true;
    input.value = task;
    label.append(input, ` ${name}`);
    box.append(label);
  }
  document.getElementById("form").addEventListener("submit", tag);
}

init();
