// Building the page's content from data. Nothing here sets innerHTML: every string (an answer, a value, a document's
// text) becomes a text node, so a document holding <script> or Markdown shows it as written.

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name.startsWith("aria-") || name.startsWith("data-")) node.setAttribute(name, value);
    else node[name] = value;
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

// Split a Markdown table line into its cells at unescaped pipes; the escapes stay for `inline` to undo.
function cells(line) {
  const found = [];
  let cell = "";
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\\" && i + 1 < line.length) {
      cell += line[i] + line[i + 1];
      i++;
    } else if (line[i] === "|") {
      found.push(cell.trim());
      cell = "";
    } else cell += line[i];
  }
  found.push(cell.trim());
  return found.slice(1, -1);
}

// The inline Markdown the agent writes (bold, code, backslash escapes) as nodes; any other character is text.
export function inline(text) {
  const nodes = [];
  let plain = "";
  let strong = null;
  const flush = () => {
    if (plain) (strong || { append: (t) => nodes.push(t) }).append(plain);
    plain = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length) {
      plain += text[++i];
    } else if (c === "*" && text[i + 1] === "*") {
      flush();
      if (strong) {
        nodes.push(strong);
        strong = null;
      } else strong = document.createElement("strong");
      i++;
    } else if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0) plain += c;
      else {
        flush();
        const code = el("code", {}, text.slice(i + 1, end));
        (strong || { append: (n) => nodes.push(n) }).append(code);
        i = end;
      }
    } else plain += c;
  }
  flush();
  if (strong) nodes.push(strong);
  return nodes;
}

// An answer's Markdown as paragraphs and tables.
export function markdown(text) {
  const blocks = [];
  const lines = (text || "").split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim().startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].trim().startsWith("|")) rows.push(cells(lines[i++].trim()));
      i--;
      const [head, ...body] = rows.filter((r) => !r.every((c) => /^:?-{3,}:?$/.test(c)));
      blocks.push(
        el("div", { class: "table-wrap" },
          el("table", {},
            el("thead", {}, el("tr", {}, head.map((c) => el("th", { scope: "col" }, inline(c))))),
            el("tbody", {}, body.map((r) => el("tr", {}, r.map((c) => el("td", {}, inline(c)))))))),
      );
    } else if (lines[i].trim()) {
      blocks.push(el("p", {}, inline(lines[i])));
    }
  }
  return blocks;
}

// `body` as text with `ranges` ([{start, end}]) marked; overlapping ranges are merged into the first.
export function highlighted(body, ranges) {
  const pre = el("pre", { class: "body-text", tabIndex: 0 });
  let at = 0;
  for (const { start, end } of [...ranges].sort((a, b) => a.start - b.start)) {
    if (end <= at || end <= start) continue;
    const from = Math.max(start, at);
    pre.append(body.slice(at, from), el("mark", {}, body.slice(from, end)));
    at = end;
  }
  pre.append(body.slice(at));
  return pre;
}

export function value(v) {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(value).join("; ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// A document's text with `ranges` marked, and `show(range)`, which marks that one instead and scrolls to it.
export function documentText(text, ranges = []) {
  const pre = highlighted(text, ranges);
  const show = (range) => {
    pre.replaceChildren(...highlighted(text, [range]).childNodes);
    pre.querySelector("mark")?.scrollIntoView({ block: "nearest" });
  };
  return { pre, show };
}

// Where a field's value came from: a button marking the sentence it was read from, or why there is none; with how
// often its rule is right, where that was measured.
export function sourceCell(source, show) {
  if (!source) return el("td", {}, "labelled");
  const how = source.found_by + (typeof source.confidence === "number" ? `, right ${Math.round(source.confidence * 100)}% of the time` : "");
  if (source.end <= source.start) return el("td", {}, `read from an absence (${how})`);
  return el("td", {}, el("button", { type: "button", onclick: () => show(source) }, `Show where (${how})`));
}
