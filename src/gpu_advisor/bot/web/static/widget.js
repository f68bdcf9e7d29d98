/*
 * GPU Advisor (算力选型助手) chat widget.
 *
 * One tag is enough:  <script src="https://advisor.example/widget.js" data-lang="zh"></script>
 * It floats a chat bubble that talks to api/chat beside this script (the script's own
 * origin). data-lang: zh | en (default: the browser's); data-human-url: a "talk to a human"
 * link (default: the server's --human-url); data-mode="page" with data-target fills that
 * element instead (the chat page at / does this).
 *
 * An answer is drawn as a card: the operator's order button on top, the pick, the price in
 * its own element, the details as collapsible sections. The conversation (its session id and
 * what was shown) is kept in sessionStorage, so it survives the site's page navigations.
 * Status glyphs are drawn as inline SVG, never left to an emoji font the reader may lack.
 *
 * Plain JS, no framework, no build step. Everything the server says is shown with
 * textContent; links are only ever http(s) (or, for the human link, mailto) URLs set as href.
 */
(function (STRINGS, CONFIG) {
  "use strict";

  const script = document.currentScript || document.querySelector('script[src*="widget.js"]');
  if (!script || window.gpuAdvisorWidget) return;
  window.gpuAdvisorWidget = true;

  const API = new URL("api/chat", script.src).href;
  const PAGE = script.dataset.mode === "page";
  const query = PAGE ? new URLSearchParams(location.search).get("lang") : null;
  const LANG = /^en/i.test(query || script.dataset.lang || navigator.language || "zh") ? "en" : "zh";
  const UI = STRINGS[LANG] || {};
  const HISTORY_KEY = "gpu-advisor:" + API + ":" + LANG;
  const MAX_KEPT = 40; // entries of history kept for the next page
  const SLASH_HINT = /(^|[\s（(，,：:；;])\/[a-z_]+\b/;
  const EMOJI_VS = /\uFE0F/g;
  // The buttons an answer card folds into itself: their replies open under their labels.
  const FOLDS = ["/why", "/cost", "/alt", "/cmd"];

  // Marker characters the dialog writes, drawn as SVG paths (24×24) in a colour of their own.
  const GLYPHS = {
    "✅": ["ok", "M9 16.2 4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4z"],
    "❌": ["bad", "M19 6.4 17.6 5 12 10.6 6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12z"],
    "⚠": ["warn", "M1 21h22L12 2 1 21zm12-3h-2v-2h2v2zm0-4h-2v-4h2v4z"],
    "↔": ["alt", "M6.99 11 3 15l3.99 4v-3H14v-2H6.99v-3zM21 9l-3.99-4v3H10v2h7.01v3L21 9z"],
    "↗": ["what", "M9 5v2h6.59L4 18.59 5.41 20 17 8.41V15h2V5z"],
    "→": ["what", "M12 4l-1.41 1.41L16.17 11H4v2h12.17l-5.58 5.59L12 20l8-8z"],
    "•": ["dot", "M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z"],
    "🖥": ["info", "M21 2H3a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h7v2H8v2h8v-2h-2v-2h7a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zm0 14H3V4h18v12z"],
    "🧾": ["info", "M6 2v20l3-2 3 2 3-2 3 2V2H6zm9 13H9v-2h6v2zm0-4H9V9h6v2zm0-4H9V5h6v2z"],
  };
  const GLYPH_RE = new RegExp("(" + Object.keys(GLYPHS).join("|") + ")\uFE0F?", "u");

  const CSS = /*CSS*/ "";

  function t(key) {
    return UI[key] || key;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(d, className, size) {
    const NS = "http://www.w3.org/2000/svg";
    const node = document.createElementNS(NS, "svg");
    for (const [k, v] of [["viewBox", "0 0 24 24"], ["aria-hidden", "true"], ["class", className]]) {
      node.setAttribute(k, v);
    }
    if (size) node.setAttribute("width", size), node.setAttribute("height", size);
    const path = document.createElementNS(NS, "path");
    path.setAttribute("fill", "currentColor");
    path.setAttribute("d", d);
    node.appendChild(path);
    return node;
  }

  function glyph(char, extra) {
    const [name, d] = GLYPHS[char];
    return svg(d, "icon " + name + (extra ? " " + extra : ""));
  }

  // Text with the dialog's marker glyphs drawn as icons: a fragment of text nodes and SVGs.
  function rich(text) {
    const out = document.createDocumentFragment();
    let rest = String(text || "");
    for (let m = GLYPH_RE.exec(rest); m; m = GLYPH_RE.exec(rest)) {
      if (m.index) out.append(rest.slice(0, m.index));
      out.appendChild(glyph(m[1], "inline"));
      rest = rest.slice(m.index + m[0].length);
    }
    out.append(rest.replace(EMOJI_VS, ""));
    return out;
  }

  // A line's leading marker, split off to be drawn as its icon: [char | null, the rest].
  function marker(line) {
    const m = /^\s*(\S)\uFE0F?\s*/u.exec(line || "");
    return m && GLYPHS[m[1]] ? [m[1], line.slice(m[0].length)] : [null, line || ""];
  }

  function safeUrl(raw, mail) {
    try {
      const url = new URL(raw);
      const ok = url.protocol === "https:" || url.protocol === "http:" || (mail && url.protocol === "mailto:");
      return ok ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  const HUMAN = safeUrl(script.dataset.humanUrl || CONFIG.human_url || "", true);

  // Lines that tell chat users to type a /command: the web shows buttons instead.
  function unhinted(lines) {
    return (lines || []).filter((line) => !SLASH_HINT.test(line));
  }

  // --- what the server said, reduced to what a card needs (and what history keeps) ------------
  function priceOf(data, pick) {
    if (data.price) return data.price;
    const cost = pick && (pick.monthly_cost || pick.cost);
    if (!cost || typeof cost.amount !== "number") return null;
    let money;
    try {
      const fmt = { style: "currency", currency: cost.currency || "CNY", maximumFractionDigits: 0 };
      money = new Intl.NumberFormat(LANG === "zh" ? "zh-CN" : "en-US", fmt).format(cost.amount);
    } catch (e) {
      money = cost.amount + " " + (cost.currency || "");
    }
    return money + (cost.per === "hour" ? t("per_hour") : t("per_month"));
  }

  // An answer card: the pick with its price. The reply's own price and pick when it names them;
  // else the plan's pick, priced as the title shows it (a detail reply such as /why is no answer).
  function cardOf(data) {
    const plan = data.plan || {};
    const pick = plan.recommendation;
    const [mark, title] = marker(data.title);
    const price = data.price || (pick ? priceOf(data, pick) : null);
    if (!price || !(data.price || title.includes(price))) return null;
    const urlButton = (data.buttons || []).find((b) => b.url && safeUrl(b.url));
    const href = urlButton ? safeUrl(urlButton.url) : pick && pick.order_url ? safeUrl(pick.order_url) : null;
    const label = urlButton ? urlButton.label : (pick && pick.order_label) || t("order");
    const name = data.pick || title.replace(price, "").replace(/[\s·:：]+$/, "");
    const folds = (data.buttons || []).filter((b) => FOLDS.includes(b.payload)).map((b) => ({ ...b, lines: null }));
    return {
      lead: unhinted(data.lead),
      mark,
      pick: name,
      price,
      order: href ? { href, label } : null,
      summary: data.summary || [],
      sections: (data.sections || []).filter((s) => s.lines && s.lines.length),
      folds,
      footer: unhinted(data.footer),
    };
  }

  // A reply's details as lines for a fold: its summary, then each section's lines under its heading.
  function foldLines(data) {
    const out = (data.summary || []).map((line) => ({ text: line }));
    for (const s of data.sections || []) {
      if (!s.lines || !s.lines.length) continue;
      if (s.heading && (data.sections.length > 1 || out.length)) out.push({ text: s.heading, heading: true });
      for (const line of s.lines) out.push({ text: line, bullet: s.bullet, code: Boolean(s.code) });
    }
    for (const line of unhinted(data.footer)) out.push({ text: line, muted: true });
    return out;
  }

  // --- history (sessionStorage): the session id and what was shown -----------------------------
  function load() {
    try {
      return JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "null") || {};
    } catch (e) {
      return {};
    }
  }

  function save(state) {
    try {
      state.entries = state.entries.slice(-MAX_KEPT);
      sessionStorage.setItem(HISTORY_KEY, JSON.stringify(state));
    } catch (e) {
      /* storage may be off (private mode): the conversation lasts as long as the page */
    }
  }

  function mount(target) {
    const host = el("div");
    host.id = "gpu-advisor-widget";
    if (PAGE) host.style.height = "100%";
    target.appendChild(host);
    const shadow = host.attachShadow({ mode: "open" });
    shadow.appendChild(el("style", "", CSS));
    const root = el("div", PAGE ? "root page" : "root");
    const panel = el("section", "panel");
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", t("title"));
    const head = el("header", "head");
    head.appendChild(el("h2", "title", t("title")));
    const log = el("div", "log");
    log.setAttribute("aria-live", "polite");
    log.dataset.role = "log";
    const quick = el("div", "quick");
    quick.dataset.role = "quick";
    const form = el("form", "form");
    const input = el("input", "input");
    input.type = "text";
    input.placeholder = t("placeholder");
    input.setAttribute("aria-label", t("placeholder"));
    input.setAttribute("enterkeyhint", "send");
    input.dataset.role = "input";
    const send = el("button", "send", t("send"));
    send.type = "submit";
    send.dataset.role = "send";
    form.append(input, send);
    panel.append(head, log, quick, form);
    root.appendChild(panel);
    shadow.appendChild(root);
    return { root, panel, head, log, quick, form, input, send };
  }

  // Light or dark: the host page's own color-scheme when it names just one, else the reader's setting.
  function followTheme(root) {
    const media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    const apply = () => {
      const meta = document.querySelector('meta[name="color-scheme"]');
      const declared = (getComputedStyle(document.documentElement).colorScheme || "").trim();
      const page = declared && declared !== "normal" ? declared : meta ? meta.content.trim() : "";
      const only = /^(light|dark)$/.test(page) ? page : null;
      root.classList.toggle("dark", only ? only === "dark" : !!(media && media.matches));
    };
    apply();
    if (media && media.addEventListener) media.addEventListener("change", apply);
  }

  function drawCard(card, unfold) {
    const node = el("div", "msg bot card");
    for (const line of card.lead) node.appendChild(el("p", "line muted")).appendChild(rich(line));
    if (card.order) {
      const link = el("a", "order", card.order.label);
      link.href = card.order.href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.dataset.role = "order";
      node.appendChild(link);
    }
    const pick = el("p", "pick");
    pick.dataset.role = "pick";
    if (card.mark) pick.appendChild(glyph(card.mark));
    pick.appendChild(el("span", "", card.pick));
    const price = el("div", "price", card.price);
    price.dataset.role = "price";
    node.append(pick, price);
    for (const line of card.summary) node.appendChild(lineNode({ text: line }));
    for (const section of card.sections) {
      node.appendChild(fold(section.heading, section.lines.map((text) => ({ text, bullet: section.bullet }))));
    }
    for (const f of card.folds) node.appendChild(fold(f.label, f.lines, () => unfold(f)));
    for (const line of card.footer) node.appendChild(el("p", "line muted")).appendChild(rich(line));
    return node;
  }

  function lineNode(line) {
    if (line.heading) return el("p", "line sub", line.text.replace(/[：:]\s*$/, ""));
    if (line.code) return el("pre", "line code", line.text); // a command to copy as it is
    const node = el("p", "line item" + (line.muted ? " muted" : ""));
    const [mark, rest] = marker(line.text);
    const bullet = mark || (line.bullet && GLYPHS[line.bullet] ? line.bullet : null);
    if (bullet) node.appendChild(glyph(bullet));
    node.appendChild(el("span")).appendChild(rich(rest));
    return node;
  }

  // A collapsible section; ``load`` fills it the first time it opens (and returns its lines).
  function fold(heading, lines, load) {
    const box = el("details");
    const summary = el("summary");
    summary.appendChild(rich(String(heading || "").replace(/[：:]\s*$/, "")));
    const body = el("div", "fold");
    const fill = (list) => body.replaceChildren(...list.map(lineNode));
    if (lines) fill(lines);
    box.append(summary, body);
    if (load) {
      box.addEventListener("toggle", async () => {
        if (!box.open || box.dataset.loaded) return;
        box.dataset.loaded = "1";
        body.replaceChildren(el("p", "line muted", t("thinking")));
        const got = await load();
        if (got) {
          fill(got);
        } else {
          delete box.dataset.loaded;
          body.replaceChildren(el("p", "line muted", t("error")));
        }
      });
      if (lines) box.dataset.loaded = "1";
    }
    return box;
  }

  function start(target) {
    const ui = mount(target);
    followTheme(ui.root);
    const kept = load();
    const state = { session: kept.session || null, entries: kept.entries || [], buttons: kept.buttons || [],
      open: !!kept.open, asked: kept.asked || [], requirements: kept.requirements || {}, pick: kept.pick || null };
    let busy = false;
    let started = state.entries.length > 0;

    function remember() {
      save(state);
    }

    function draw(entry) {
      let node;
      if (entry.card) node = drawCard(entry.card, (f) => unfold(f));
      else {
        node = el("div", "msg " + entry.kind);
        node.appendChild(rich(entry.text));
      }
      node.dataset.role = entry.card ? "card" : entry.kind.split(" ").pop(); // user | bot | busy | error
      ui.log.appendChild(node);
      return node;
    }

    function say(kind, text, keep) {
      const entry = { kind, text };
      if (keep) state.entries.push(entry);
      const node = draw(entry);
      ui.log.scrollTop = ui.log.scrollHeight;
      return node;
    }

    // An answer is drawn as a card; anything else as its lines, without the /command hints
    // (the buttons below do what they say).
    function sayReply(data, card) {
      if (!card) {
        const parts = data.title ? [...(data.lead || []), data.title, ...(data.summary || [])] : [];
        for (const s of data.sections || []) parts.push(s.heading, ...(s.lines || []).map((l) => (s.bullet ? s.bullet + " " : "") + l));
        const lines = data.title ? parts.concat(data.footer || []) : String(data.text || "").split("\n");
        const shown = unhinted(lines.filter((l) => l));
        return say("bot", (shown.length ? shown : lines).join("\n"), true);
      }
      const entry = { card };
      state.entries.push(entry);
      const node = draw(entry);
      ui.log.scrollTop = node.offsetTop - 8; // read from its top: the order button and the price
      return node;
    }

    // A fold of an answer card opened for the first time: its button's reply, kept in the history.
    async function unfold(f) {
      if (busy || !state.session) return null;
      setBusy(true);
      try {
        const { response, data } = await call({ button: f.payload });
        if (!response.ok || !data) return null;
        f.lines = foldLines(data);
        return f.lines;
      } catch (e) {
        return null;
      } finally {
        setBusy(false);
        remember();
      }
    }

    function buttons(list) {
      ui.quick.replaceChildren();
      for (const b of list || []) {
        const button = el("button", "", b.label);
        button.type = "button";
        button.addEventListener("click", () => ask({ button: b.payload }, b.label));
        ui.quick.appendChild(button);
      }
      if (HUMAN && state.session) ui.quick.appendChild(handoverButton());
    }

    function handoverText() {
      const req = Object.entries(state.requirements).map(([k, v]) => k + ": " + (Array.isArray(v) ? v.join(", ") : v));
      const parts = [t("handover_title")];
      if (state.asked.length) parts.push(t("asked") + ": " + state.asked.join(" / "));
      if (state.pick) parts.push(t("pick") + ": " + state.pick);
      return parts.concat(req).join("\n");
    }

    function handoverButton() {
      const button = el("button", "copy", t("handover"));
      button.type = "button";
      button.dataset.role = "handover";
      button.addEventListener("click", () => {
        const text = handoverText();
        const box = el("div", "msg bot handover");
        box.dataset.role = "handover-text";
        const area = el("textarea");
        area.readOnly = true;
        area.value = text;
        box.append(el("strong", "", t("handover_title")), area);
        ui.log.appendChild(box);
        ui.log.scrollTop = ui.log.scrollHeight;
        area.select();
        if (navigator.clipboard) {
          navigator.clipboard.writeText(text).then(() => (button.textContent = t("copied")), () => {});
        }
      });
      return button;
    }

    function setBusy(on) {
      busy = on;
      ui.send.disabled = on;
      for (const b of ui.quick.querySelectorAll("button")) b.disabled = on;
    }

    async function call(body) {
      const response = await fetch(API, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(Object.assign({ session_id: state.session || undefined, lang: LANG }, body)),
      });
      return { response, data: await response.json().catch(() => null) };
    }

    function received(data) {
      state.session = data.session_id;
      state.requirements = data.requirements || {};
      const card = cardOf(data);
      if (card) state.pick = card.pick + " · " + card.price;
      sayReply(data, card);
      state.buttons = (data.buttons || []).filter((b) => !b.url && !(card && FOLDS.includes(b.payload)));
      buttons(state.buttons);
      remember();
    }

    async function ask(body, shown) {
      if (busy) return;
      if (shown) say("user", shown, true);
      if (body.text) state.asked = state.asked.concat(body.text).slice(-5);
      setBusy(true);
      const waiting = say("bot busy", t("thinking"));
      try {
        const { response, data } = await call(body);
        waiting.remove();
        if (response.ok && data) {
          received(data);
        } else if (response.status === 422 && data && data.error && data.error.field === "session_id") {
          state.session = null;
          say("bot error", t("error"));
        } else {
          say("bot error", t(response.status === 429 ? "rate_limited" : "error"));
        }
      } catch (e) {
        waiting.remove();
        say("bot error", t("network_error"));
      } finally {
        setBusy(false);
        remember();
      }
    }

    function open() {
      ui.panel.hidden = false;
      ui.root.classList.add("open");
      state.open = true;
      remember();
      if (!started) {
        started = true;
        ask({ button: "/start" });
      }
      ui.input.focus();
    }

    ui.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = ui.input.value.trim();
      if (!text || busy) return;
      ui.input.value = "";
      ask({ text }, text);
    });

    for (const entry of state.entries) draw(entry); // what this tab was shown before (a page navigation)
    buttons(state.buttons);
    if (HUMAN) {
      const human = el("a", "human", t("human"));
      human.href = HUMAN;
      human.target = "_blank";
      human.rel = "noopener noreferrer";
      human.dataset.role = "human";
      if (HUMAN.startsWith("mailto:")) {
        // A mail link carries the requirements as its body, so the reader need not copy them.
        human.addEventListener("click", () => {
          human.href = HUMAN + (HUMAN.includes("?") ? "&" : "?") + "body=" + encodeURIComponent(handoverText());
        });
      }
      ui.head.appendChild(human);
    }

    if (PAGE) {
      open();
      return;
    }
    const close = el("button", "close", "×");
    close.type = "button";
    close.dataset.role = "close";
    close.setAttribute("aria-label", t("close"));
    const bubble = el("button", "bubble");
    close.addEventListener("click", () => {
      ui.panel.hidden = true;
      ui.root.classList.remove("open");
      state.open = false;
      remember();
      bubble.focus();
    });
    ui.head.appendChild(close);
    ui.panel.hidden = true;
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !ui.panel.hidden) close.click();
    });
    bubble.appendChild(svg("M4 3h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z", "", "28"));
    bubble.type = "button";
    bubble.setAttribute("aria-label", t("open"));
    bubble.dataset.role = "bubble";
    bubble.addEventListener("click", () => (ui.panel.hidden ? open() : close.click()));
    ui.root.appendChild(bubble);
    if (state.open) open();
    const last = ui.log.lastElementChild;
    if (last) ui.log.scrollTop = last.dataset.role === "card" ? last.offsetTop - 8 : ui.log.scrollHeight;
  }

  function boot() {
    const target = (PAGE && document.getElementById(script.dataset.target || "")) || document.body;
    start(target);
  }

  if (document.body) boot();
  else document.addEventListener("DOMContentLoaded", boot);
})(/*UI*/ {}, /*CONFIG*/ {});
