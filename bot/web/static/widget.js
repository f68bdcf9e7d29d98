/*
 * GPU Advisor (算力选型助手) chat widget.
 *
 * One tag is enough:  <script src="https://advisor.example/widget.js" data-lang="zh"></script>
 * It floats a chat bubble that talks to api/chat beside this script (the script's own
 * origin). data-lang: zh | en (default: the browser's); data-mode="page" with data-target
 * fills that element instead (the chat page at / does this).
 *
 * Plain JS, no framework, no build step. Everything the server says is shown with
 * textContent; links are only ever http(s) URLs set as href.
 */
(function (STRINGS) {
  "use strict";

  const script = document.currentScript || document.querySelector('script[src*="widget.js"]');
  if (!script || window.gpuAdvisorWidget) return;
  window.gpuAdvisorWidget = true;

  const API = new URL("api/chat", script.src).href;
  const PAGE = script.dataset.mode === "page";
  const query = PAGE ? new URLSearchParams(location.search).get("lang") : null;
  const LANG = /^en/i.test(query || script.dataset.lang || navigator.language || "zh") ? "en" : "zh";
  const UI = STRINGS[LANG] || {};
  const SESSION_KEY = "gpu-advisor-session:" + API;

  const CSS = `
    :host { all: initial; }
    * { box-sizing: border-box; font-family: system-ui, -apple-system, "PingFang SC", "Microsoft YaHei",
        "Noto Sans CJK SC", sans-serif; }
    .root.page { height: 100%; }
    .bubble { position: fixed; right: 20px; bottom: 20px; width: 56px; height: 56px; border: 0;
      border-radius: 50%; background: #2563eb; color: #fff; display: flex; align-items: center;
      justify-content: center; cursor: pointer; box-shadow: 0 4px 14px rgba(0, 0, 0, .25); z-index: 2147483000; }
    .panel { position: fixed; right: 20px; bottom: 88px; width: 380px; max-width: calc(100vw - 40px);
      height: min(600px, calc(100vh - 120px)); display: flex; flex-direction: column; background: #fff;
      color: #111827; border-radius: 14px; box-shadow: 0 10px 40px rgba(0, 0, 0, .25); overflow: hidden;
      z-index: 2147483000; }
    .panel[hidden] { display: none; }
    .page .panel { position: static; width: 100%; max-width: none; height: 100%; border-radius: 0;
      box-shadow: none; }
    .head { display: flex; align-items: center; justify-content: space-between; padding: 12px 16px;
      background: #2563eb; color: #fff; }
    .title { margin: 0; font-size: 16px; font-weight: 600; }
    .close { border: 0; background: none; color: #fff; font-size: 24px; line-height: 1; cursor: pointer; }
    .log { position: relative; flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px;
      background: #f5f7fb; -webkit-overflow-scrolling: touch; }
    .msg { max-width: 88%; padding: 8px 12px; border-radius: 12px; white-space: pre-wrap;
      overflow-wrap: anywhere; font-size: 14px; line-height: 1.55; }
    .bot { align-self: flex-start; background: #fff; border: 1px solid #e3e7ee; }
    .user { align-self: flex-end; background: #2563eb; color: #fff; }
    .error { background: #fffbeb; border-color: #f59e0b; }
    .busy { color: #6b7280; }
    .order { align-self: flex-start; padding: 8px 14px; border-radius: 10px; background: #16a34a;
      color: #fff; font-size: 14px; font-weight: 600; text-decoration: none; }
    .quick { display: flex; flex-wrap: wrap; gap: 6px; padding: 8px 12px 0; background: #fff; }
    .quick:empty { display: none; }
    .quick button { min-height: 36px; padding: 6px 12px; border: 1px solid #2563eb; border-radius: 18px;
      background: #fff; color: #2563eb; font-size: 14px; cursor: pointer; }
    .form { display: flex; gap: 8px; padding: 10px 12px; background: #fff; border-top: 1px solid #e3e7ee;
      padding-bottom: max(10px, env(safe-area-inset-bottom)); }
    .input { flex: 1; min-width: 0; padding: 10px 12px; border: 1px solid #cbd2dc; border-radius: 10px;
      font-size: 16px; }
    .send { padding: 0 16px; border: 0; border-radius: 10px; background: #2563eb; color: #fff;
      font-size: 15px; cursor: pointer; }
    .send:disabled, .quick button:disabled { opacity: .5; cursor: default; }
    @media (max-width: 480px) {
      .root:not(.page) .panel { inset: 0; width: 100%; max-width: none; height: 100%;
        border-radius: 0; }
      .root.open:not(.page) .bubble { display: none; }
    }
  `;

  function t(key) {
    return UI[key] || key;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function chatIcon() {
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    for (const [k, v] of [["viewBox", "0 0 24 24"], ["width", "28"], ["height", "28"], ["aria-hidden", "true"]]) {
      svg.setAttribute(k, v);
    }
    const path = document.createElementNS(NS, "path");
    path.setAttribute("fill", "currentColor");
    path.setAttribute("d", "M4 3h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z");
    svg.appendChild(path);
    return svg;
  }

  function safeUrl(raw) {
    try {
      const url = new URL(raw);
      return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function remember(value) {
    try {
      if (value) localStorage.setItem(SESSION_KEY, value);
      else localStorage.removeItem(SESSION_KEY);
    } catch (e) {
      /* storage may be off (private mode): the conversation lasts as long as the page */
    }
  }

  function recall() {
    try {
      return localStorage.getItem(SESSION_KEY);
    } catch (e) {
      return null;
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

  function start(target) {
    const ui = mount(target);
    let session = recall();
    let busy = false;
    let started = false;

    function say(kind, text) {
      const node = el("div", "msg " + kind, text);
      node.dataset.role = kind.split(" ").pop(); // user | bot | busy | error
      ui.log.appendChild(node);
      // A long answer is read from its first line (the pick and its price), anything else at the end.
      ui.log.scrollTop = kind === "bot" ? node.offsetTop - 8 : ui.log.scrollHeight;
      return node;
    }

    // A reply's title (the pick, the question) and its section headings are bold; the rest is
    // the reply's own lines. A reply without parts is shown as its plain text.
    function sayReply(data) {
      if (!data.title) return say("bot", data.text);
      const node = say("bot", "");
      const add = (lines, tag) => {
        for (const line of lines) {
          if (node.childNodes.length) node.append("\n");
          node.appendChild(tag ? el(tag, "", line) : document.createTextNode(line));
        }
      };
      add(data.lead || []);
      add([data.title], "strong");
      add(data.summary || []);
      for (const section of data.sections || []) {
        if (!section.lines || !section.lines.length) continue;
        if (section.heading) add([section.heading], "strong");
        add(section.lines.map((line) => section.bullet + " " + line));
      }
      add(data.footer || []);
      ui.log.scrollTop = node.offsetTop - 8;
      return node;
    }

    function offerLink(plan) {
      const pick = plan && plan.recommendation;
      const href = pick && pick.order_url ? safeUrl(pick.order_url) : null;
      if (!href) return;
      const link = el("a", "order", t("order") + " · " + pick.offer);
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.dataset.role = "order";
      ui.log.appendChild(link);
    }

    function buttons(list) {
      ui.quick.replaceChildren();
      for (const b of list || []) {
        const button = el("button", "", b.label);
        button.type = "button";
        button.addEventListener("click", () => ask({ button: b.payload }, b.label));
        ui.quick.appendChild(button);
      }
    }

    function setBusy(on) {
      busy = on;
      ui.send.disabled = on;
      for (const b of ui.quick.querySelectorAll("button")) b.disabled = on;
    }

    async function ask(body, shown) {
      if (busy) return;
      if (shown) say("user", shown);
      setBusy(true);
      const waiting = say("bot busy", t("thinking"));
      try {
        const response = await fetch(API, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(Object.assign({ session_id: session || undefined, lang: LANG }, body)),
        });
        const data = await response.json().catch(() => null);
        waiting.remove();
        if (response.ok && data) {
          session = data.session_id;
          remember(session);
          sayReply(data);
          offerLink(data.plan);
          buttons(data.buttons);
        } else if (response.status === 422 && data && data.error && data.error.field === "session_id") {
          session = null;
          remember(null);
          say("bot error", t("error"));
        } else {
          say("bot error", t(response.status === 429 ? "rate_limited" : "error"));
        }
      } catch (e) {
        waiting.remove();
        say("bot error", t("network_error"));
      } finally {
        setBusy(false);
      }
    }

    function open() {
      ui.panel.hidden = false;
      ui.root.classList.add("open");
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

    if (PAGE) {
      open();
      return;
    }
    const close = el("button", "close", "×");
    close.type = "button";
    close.setAttribute("aria-label", t("close"));
    close.addEventListener("click", () => {
      ui.panel.hidden = true;
      ui.root.classList.remove("open");
    });
    ui.head.appendChild(close);
    ui.panel.hidden = true;
    const bubble = el("button", "bubble");
    bubble.appendChild(chatIcon());
    bubble.type = "button";
    bubble.setAttribute("aria-label", t("open"));
    bubble.dataset.role = "bubble";
    bubble.addEventListener("click", () => (ui.panel.hidden ? open() : close.click()));
    ui.root.appendChild(bubble);
  }

  function boot() {
    const target = (PAGE && document.getElementById(script.dataset.target || "")) || document.body;
    start(target);
  }

  if (document.body) boot();
  else document.addEventListener("DOMContentLoaded", boot);
})(/*UI*/ {});
