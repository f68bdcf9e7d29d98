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
 * its own element, the plan's chart as a thumbnail that opens full size (api/chat/chart), the
 * details as collapsible sections; commands wrap between words only and have a copy button.
 * The conversation (its session id and what was shown) is kept in localStorage, so a new tab
 * or a reopened browser carries on where it was (the server keeps it for 30 days); "start
 * over" forgets it there and on the server (api/chat/forget). The widget's own words follow
 * the conversation's language, which the server reports with every reply, and the script of
 * the user's last typed message (Traditional characters: the chrome in Traditional). Messages
 * the network dropped stay on screen marked unsent, each with a retry button, in an outbox
 * sent in the order they were written, one at a time, when the network is back (or a retry is
 * pressed); a message written meanwhile joins the end of the outbox, never overtakes it. The
 * outbox is kept with the history, so a reload carries on where it stopped, in order.
 * Each message carries a key made here (message_id), kept with it in the outbox from the moment
 * it is sent until its reply is shown: a reload while it is in flight resends it with the same
 * key, and the server answers a repeated key with the first send's reply instead of a second
 * turn (bot/web/replies.py), so nothing is asked or shown twice. A 429 or 503 (busy, too many
 * messages) keeps the message queued, marked "waiting", and sends it again after Retry-After.
 * The hand-over chip (with a human link) appears once the user has said something; it
 * copies what the team needs: the requirements as the dialog confirmed them (its "收到："
 * line, from answers), the pick and its price (the reply's own fields) and the questions
 * asked, in the user's language, script and punctuation. Status glyphs are drawn as inline
 * SVG, never left to an emoji font. Tab and Shift+Tab stay inside the panel.
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
  const CHART_API = API + "/chart";
  const FORGET_API = API + "/forget";
  const PAGE = script.dataset.mode === "page";
  const query = PAGE ? new URLSearchParams(location.search).get("lang") : null;
  const LANG = /^en/i.test(query || script.dataset.lang || navigator.language || "zh") ? "en" : "zh";
  let lang = LANG; // the conversation's language: the site's until the server says otherwise
  let hant = false; // the user's last typed message was in Traditional characters
  const HANT = new Set((STRINGS.script || {}).hant || "");
  const HANS = new Set((STRINGS.script || {}).hans || "");
  const HISTORY_KEY = "gpu-advisor:" + API; // one conversation per advisor, whatever the page's language
  const MAX_KEPT = 40; // entries of history kept for the next page
  const RETRY_MS = [1000, 2000, 4000, 8000, 15000]; // resending an unsent message, then every 15 s
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

  function t(key, values) {
    const table = STRINGS[lang === "zh" && hant ? "zh-TW" : lang] || {};
    const text = table[key] || (STRINGS[LANG] || {})[key] || key;
    return values ? text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? values[name] : all)) : text;
  }

  // A message's key (22 characters of base64url): its repeat is answered, never run again.
  function messageId() {
    const bytes = new Uint8Array(16);
    if (window.crypto && window.crypto.getRandomValues) window.crypto.getRandomValues(bytes);
    else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // As the dialog decides (bot/dialog/script.py): a character only one script has settles it;
  // a message with neither ("改用 int4", "ok") keeps the script the conversation had.
  function scriptAfter(text, before) {
    const chars = [...String(text || "")];
    if (chars.some((ch) => HANT.has(ch))) return true;
    if (chars.some((ch) => HANS.has(ch))) return false;
    return before;
  }

  // A piece of the widget's own words: relabelled when the language or script changes.
  function word(tag, className, key, values) {
    const node = el(tag, className, t(key, values));
    node.dataset.key = key;
    if (values) node.dataset.values = JSON.stringify(values);
    return node;
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

  /*PARTS*/

  // --- history (localStorage): the session id and what was shown ------------------------------
  function stores() {
    const out = [];
    for (const name of ["localStorage", "sessionStorage"]) {
      try {
        if (window[name]) out.push(window[name]);
      } catch (e) {
        /* a sandboxed frame may refuse storage: the conversation lasts as long as the page */
      }
    }
    return out;
  }

  function load() {
    for (const store of stores()) {
      try {
        const kept = JSON.parse(store.getItem(HISTORY_KEY) || "null");
        if (kept) return kept;
      } catch (e) {
        /* unreadable: start afresh */
      }
    }
    return {};
  }

  function save(state) {
    state.entries = state.entries.slice(-MAX_KEPT);
    for (const store of stores().slice(0, 1)) {
      try {
        store.setItem(HISTORY_KEY, JSON.stringify(state));
      } catch (e) {
        /* full or refused: the conversation lasts as long as the page */
      }
    }
  }

  function wipe() {
    for (const store of stores()) {
      try {
        store.removeItem(HISTORY_KEY);
      } catch (e) {
        /* nothing kept */
      }
    }
  }

  function button(className, text, role, key) {
    const node = el("button", className, key ? t(key) : text);
    if (key) node.dataset.key = key;
    node.type = "button";
    if (role) node.dataset.role = role;
    return node;
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
    const head = el("header", "head");
    const title = el("h2", "title");
    const restart = button("restart", "", "restart");
    head.append(title, restart);
    const log = el("div", "log");
    log.setAttribute("role", "log"); // polite live region: each reply is read out
    log.tabIndex = 0; // scrollable by keyboard; the quick replies come after it
    log.dataset.role = "log";
    const quick = el("div", "quick");
    quick.dataset.role = "quick";
    const form = el("form", "form");
    const input = el("input", "input");
    input.type = "text";
    input.setAttribute("enterkeyhint", "send");
    input.dataset.role = "input";
    const send = el("button", "send");
    send.type = "submit";
    send.dataset.role = "send";
    form.append(input, send);
    panel.append(head, log, quick, form);
    root.appendChild(panel);
    shadow.appendChild(root);
    return { root, panel, head, title, restart, log, quick, form, input, send };
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

  function start(target) {
    const ui = mount(target);
    followTheme(ui.root);
    const state = { entries: [], buttons: [] };
    let busy = false;
    let started = false;
    const outbox = []; // unsent messages, oldest first: { body, entry, node, note, tries }
    const charts = new Map(); // drawn charts by session and words: a redraw (another tab) fetches none
    let timer = null;

    function remember() {
      state.lang = lang;
      state.hant = hant;
      save(state);
    }

    // The widget's own words in the conversation's language.
    function relabel() {
      ui.root.lang = lang === "zh" ? (hant ? "zh-TW" : "zh-CN") : "en";
      ui.title.textContent = t("title");
      ui.panel.setAttribute("aria-label", t("title"));
      ui.log.setAttribute("aria-label", t("log"));
      ui.input.setAttribute("aria-label", t("placeholder"));
      ui.send.textContent = t("send");
      ui.restart.textContent = t("restart");
      if (ui.close) ui.close.setAttribute("aria-label", t("close"));
      if (ui.bubble) ui.bubble.setAttribute("aria-label", t("open"));
      if (ui.human) ui.human.textContent = t("human");
      for (const node of ui.root.querySelectorAll("[data-key]")) {
        node.textContent = t(node.dataset.key, node.dataset.values ? JSON.parse(node.dataset.values) : undefined);
      }
      fitPlaceholder();
    }

    // The long placeholder where it fits the box, else the short one: never cut mid-word.
    function fitPlaceholder() {
      const style = getComputedStyle(ui.input);
      const room = ui.input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const canvas = fitPlaceholder.canvas || (fitPlaceholder.canvas = document.createElement("canvas"));
      const ctx = canvas.getContext("2d");
      ctx.font = style.font || `${style.fontSize} ${style.fontFamily}`;
      const long = t("placeholder");
      ui.input.placeholder = room <= 0 || ctx.measureText(long).width <= room ? long : t("placeholder_short");
    }

    function draw(entry) {
      let node;
      if (entry.card) node = drawCard(entry.card, (f) => unfold(f), viewChart);
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

    // The chart full size, drawn by the server only now that it is asked for (and kept).
    async function viewChart(words, opener) {
      const show = viewer(words, opener);
      const key = state.session + "\n" + words;
      try {
        if (!charts.has(key)) charts.set(key, await fetchChart());
        show(charts.get(key));
      } catch (e) {
        show(null);
      }
    }

    async function fetchChart() {
      const response = await fetch(CHART_API, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ session_id: state.session }),
      });
      if (!response.ok) throw new Error("no chart: " + response.status);
      return dataUrl(await response.blob());
    }

    // The chart full size over everything (a phone's whole screen), until closed or Escape;
    // it says it is drawing until ``show(url)`` puts the picture in (or says it failed).
    function viewer(words, opener) {
      const box = el("div", "viewer");
      box.dataset.role = "chart-full";
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-modal", "true");
      box.setAttribute("aria-label", t("chart_caption"));
      const close = button("viewer-close", "×", "chart-close");
      close.setAttribute("aria-label", t("close"));
      const body = el("div", "viewer-body");
      body.appendChild(word("p", "viewer-note", "chart_loading"));
      box.append(close, body);
      ui.root.appendChild(box);
      close.focus();
      const done = () => {
        box.remove();
        opener.focus();
      };
      close.addEventListener("click", done);
      box.addEventListener("keydown", (event) => {
        if (event.key !== "Escape") return;
        event.stopPropagation(); // the panel stays open
        done();
      });
      return (url) => {
        if (!url) return body.replaceChildren(word("p", "viewer-note", "chart_failed"));
        const img = el("img");
        img.src = url;
        img.alt = words;
        body.replaceChildren(img);
      };
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
        const chip = button("", b.label);
        // detail 0: pressed with Enter or Space, so focus follows to what comes next
        chip.addEventListener("click", (event) => ask({ button: b.payload }, b.label, { keyboard: event.detail === 0 }));
        ui.quick.appendChild(chip);
      }
      if (HUMAN && state.asked.length) ui.quick.appendChild(handoverButton()); // once something was said
    }

    // What the team needs, in the dialog's own words (never field names): the requirements as
    // it confirmed them, the pick with its price, the questions asked; the user's punctuation.
    function handoverText() {
      const zh = lang === "zh";
      const colon = zh ? "：" : ": ";
      const parts = [t("handover_title")];
      if (state.understood) parts.push(t("understood") + colon + state.understood);
      if (state.pick) parts.push(t("pick") + colon + state.pick);
      if (state.asked.length) parts.push(t("asked") + colon + state.asked.join(zh ? "；" : "; "));
      return parts.join("\n");
    }

    // The requirements in a reply's confirmation line ("收到：推理 · 13B · …"), if it has one.
    function confirmed(data) {
      const prefixes = ["zh", "en", "zh-TW"].map((l) => (STRINGS[l] || {}).ack_prefix).filter(Boolean);
      for (const line of data.lead || []) {
        const prefix = prefixes.find((p) => line.startsWith(p));
        if (prefix) return line.slice(prefix.length).replace(/[。.]$/, "").trim();
      }
      return null;
    }

    function handoverButton() {
      const handover = button("copy", null, "handover", "handover");
      handover.addEventListener("click", () => {
        const text = handoverText();
        const box = el("div", "msg bot handover");
        box.dataset.role = "handover-text";
        const area = el("textarea");
        area.readOnly = true;
        area.value = text;
        area.setAttribute("aria-label", t("handover_title"));
        box.append(el("strong", "", t("handover_title")), area);
        ui.log.appendChild(box);
        ui.log.scrollTop = ui.log.scrollHeight;
        area.select();
        if (navigator.clipboard) {
          navigator.clipboard.writeText(text).then(() => (handover.dataset.key = "copied", handover.textContent = t("copied")), () => {});
        }
      });
      return handover;
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
      if (data.lang && data.lang !== lang) {
        lang = data.lang; // the user wrote in the other language: the chrome follows
        relabel();
      }
      // An answer confirms the whole request; a question what its message added.
      const items = confirmed(data);
      if (items && data.kind === "answer") state.understood = items;
      else if (items) state.understood = state.understood ? state.understood + " · " + items : items;
      const card = cardOf(data);
      if (card && data.kind === "answer" && data.pick && data.price) state.pick = data.pick + " · " + data.price;
      if (card && data.chart && data.plan) card.chart = chartOf(data.plan);
      const node = sayReply(data, card);
      // The header's "start over" stands for /new here (and forgets on the server too).
      const shown = (b) => !b.url && b.payload !== "/new" && !(card && FOLDS.includes(b.payload));
      state.buttons = (data.buttons || []).filter(shown);
      buttons(state.buttons);
      remember();
      return card ? node : null;
    }

    // One message to the server; ``how.entry``/``how.node`` resend an unsent one in place. A new
    // message while others wait in the outbox joins its end: the order written is the order sent.
    async function ask(body, shown, how) {
      how = how || {};
      if (busy && !how.resend) return;
      if (!body.message_id) body = Object.assign({ message_id: messageId() }, body);
      let entry = how.entry || null;
      let node = how.node || null;
      if (shown && !entry) {
        entry = { kind: "user", text: shown };
        state.entries.push(entry);
        node = draw(entry);
        ui.log.scrollTop = ui.log.scrollHeight;
        if (body.text) {
          state.asked = state.asked.concat(body.text).slice(-5);
          const was = hant;
          hant = scriptAfter(body.text, hant);
          if (hant !== was) relabel();
        }
      }
      if (outbox.length && !how.resend) {
        hold(body, entry, node, 0, false, true);
        remember();
        return flush(false);
      }
      setBusy(true);
      if (entry) entry.unsent = body; // in flight: a reload now resends it, under the same key
      remember();
      const waiting = say("bot busy", t("thinking"));
      let sent = false;
      let answer = null;
      try {
        const { response, data } = await call(body);
        waiting.remove();
        const code = data && data.error ? data.error.code : null;
        if (response.status === 429 || response.status === 503) {
          // Busy, or too many messages: not an error; it waits its turn and goes again by itself.
          hold(body, entry, node, how.tries || 0, true, true, retryAfter(response, data));
          return;
        }
        sent = true;
        if (entry) delete entry.unsent;
        if (response.ok && data) {
          answer = received(data);
        } else if (response.status === 409 && code === "duplicate") {
          say("bot", t("answered_before"), true); // answered before a reload; its reply went with the old page
        } else if (response.status === 422 && data && data.error && data.error.field === "session_id") {
          state.session = null;
          say("bot error", t("error"));
        } else {
          say("bot error", t("error"));
        }
      } catch (e) {
        waiting.remove();
        hold(body, entry, node, how.tries || 0, true, true);
      } finally {
        setBusy(false);
        remember();
      }
      if (sent && outbox.length) flush(false); // the next one waiting goes now
      else if (how.keyboard) (answer || ui.quick.querySelector("button") || ui.input).focus();
    }

    // The network dropped the message (or one before it waits): kept, marked, with a retry, in
    // the outbox; ``first`` puts it back at the head (it was the one being sent). ``auto``: this
    // tab resends it by itself (one restored from another tab's history waits for a press, so
    // two tabs never both send it).
    // ``wait``: the server asked for that many seconds (429/503): "waiting", not "unsent".
    function hold(body, entry, node, tries, first, auto, wait) {
      if (entry) entry.unsent = body;
      const busyServer = wait !== undefined;
      if (!node) node = say(busyServer ? "bot busy" : "bot error", t(busyServer ? "thinking" : "network_error"));
      node.classList.add(busyServer ? "waiting" : "unsent");
      const note = el("div", busyServer ? "unsent-note waiting" : "unsent-note");
      note.dataset.role = busyServer ? "waiting" : "unsent";
      const retry = button("retry", null, "retry", "retry");
      retry.addEventListener("click", () => flush(true));
      const says = busyServer ? word("span", "", "waiting", { seconds: wait }) : word("span", "", first || !outbox.length ? "unsent" : "pending");
      note.append(says, retry); // or waiting its turn
      node.after(note);
      const item = { body, entry, node, note, tries, auto, wait, due: busyServer ? Date.now() + wait * 1000 : 0 };
      if (first) outbox.unshift(item);
      else outbox.push(item);
      clearTimeout(timer);
      const head = outbox[0];
      const ms = head.wait !== undefined ? head.wait * 1000 : RETRY_MS[Math.min(head.tries, RETRY_MS.length - 1)];
      timer = setTimeout(() => flush(false), ms);
    }

    // The seconds a 429/503 asks to wait: its Retry-After header (when the page may read it), else
    // the error body's retry_after, else 5; at least 1, at most 5 minutes.
    function retryAfter(response, data) {
      const header = Number(response.headers.get("Retry-After"));
      const body = data && data.error ? Number(data.error.retry_after) : NaN;
      const seconds = header > 0 ? header : body > 0 ? body : 5;
      return Math.min(300, Math.max(1, Math.ceil(seconds)));
    }

    // Send the oldest unsent message (the rest follow it, one at a time, as each gets through).
    function flush(pressed) {
      clearTimeout(timer);
      if (!outbox.length || !(pressed || outbox[0].auto)) return;
      if (!pressed && outbox[0].due > Date.now()) {
        timer = setTimeout(() => flush(false), outbox[0].due - Date.now()); // the server's Retry-After holds
        return;
      }
      if (busy) {
        timer = setTimeout(() => flush(pressed), RETRY_MS[0]);
        return;
      }
      const p = outbox.shift();
      p.note.remove();
      p.node.classList.remove("unsent", "waiting");
      if (!p.entry) p.node.remove(); // an error line stood for a message the user never wrote (the welcome)
      ask(p.body, null, { entry: p.entry, node: p.entry ? p.node : null, tries: p.tries + 1, resend: true });
    }

    // The kept conversation drawn again: this tab's, another tab's, or nothing after "start over".
    function restore(kept, auto) {
      clearTimeout(timer);
      outbox.length = 0;
      Object.assign(state, {
        session: kept.session || null,
        entries: kept.entries || [],
        buttons: kept.buttons || [],
        open: !!kept.open,
        asked: kept.asked || [],
        understood: kept.understood || "",
        pick: kept.pick || null,
      });
      lang = kept.lang || LANG;
      hant = !!kept.hant;
      ui.log.replaceChildren();
      for (const entry of state.entries) {
        const node = draw(entry);
        if (entry.unsent) hold(entry.unsent, entry, node, 0, false, auto !== false); // in the order written
      }
      if (auto !== false && outbox.length) setTimeout(() => flush(false), 0); // cut off by a reload: resent now, same key
      buttons(state.buttons);
      started = state.entries.length > 0;
      relabel();
    }

    // "Start over": forgotten on the server and in this browser, then a fresh welcome.
    async function startOver() {
      const session = state.session;
      if (session) {
        try {
          await fetch(FORGET_API, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ session_id: session }),
          });
        } catch (e) {
          /* offline: this browser forgets now; the server lets it expire */
        }
      }
      wipe();
      const open = state.open;
      restore({ open });
      remember();
      started = true;
      ask({ button: "/start" });
      ui.input.focus();
    }

    // Tab from the last control goes round to the header, Shift+Tab from the first to Send:
    // the keyboard never leaves the panel for the page behind it.
    function keepTab(event) {
      const stops = [...ui.panel.querySelectorAll("a[href], button, input, summary, textarea, [tabindex='0']")].filter(
        (n) => !n.disabled && n.getClientRects().length
      );
      if (!stops.length) return;
      const here = ui.root.getRootNode().activeElement;
      const [first, last] = [stops[0], stops[stops.length - 1]];
      const to = event.shiftKey ? (here === first ? last : null) : here === last ? first : null;
      if (!to) return;
      event.preventDefault();
      to.focus();
    }

    function open() {
      ui.panel.hidden = false;
      ui.root.classList.add("open");
      state.open = true;
      remember();
      fitPlaceholder();
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
    ui.restart.addEventListener("click", startOver);
    window.addEventListener("online", () => flush(false));
    ui.panel.addEventListener("keydown", (event) => {
      if (event.key === "Tab") keepTab(event);
    });
    window.addEventListener("resize", fitPlaceholder);
    window.addEventListener("storage", (event) => {
      if (event.key === HISTORY_KEY && !busy) restore(load(), false); // another tab went on (or started over)
    });

    if (HUMAN) {
      const human = el("a", "human");
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
      ui.title.after(human);
      ui.human = human;
    }
    if (!PAGE) {
      ui.close = button("close", "×", "close");
      ui.bubble = button("bubble", undefined, "bubble");
    }
    restore(load()); // what this browser was shown before: another page, tab or visit

    if (PAGE) {
      open();
      return;
    }
    const { close, bubble } = ui;
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
