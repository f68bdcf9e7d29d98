/*
 * The widget's cards (a fragment of widget.js: bot/web/pages.py writes it where widget.js
 * reads its PARTS marker, inside the same closure, so it shares t, el, rich, glyph, marker).
 *
 * What the server said, reduced to what a card needs (and what history keeps); the card
 * drawn: order button, pick, price, folds; commands as blocks that wrap between words and
 * copy; the plan's chart in words, its text alternative.
 */
  // --- what the server said, reduced to what a card needs (and what history keeps) ------------
  function priceOf(data, pick) {
    if (data.price) return data.price;
    const cost = pick && (pick.monthly_cost || pick.cost);
    if (!cost || typeof cost.amount !== "number") return null;
    let money;
    try {
      const fmt = { style: "currency", currency: cost.currency || "CNY", maximumFractionDigits: 0 };
      money = new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US", fmt).format(cost.amount);
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


  function drawCard(card, unfold, openChart) {
    const node = el("div", "msg bot card");
    node.tabIndex = -1; // focus lands on a new card when it came from a key press
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", card.pick + " · " + card.price);
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
    if (card.chart) node.appendChild(thumbnail(card.chart, openChart));
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
    const node = el("p", "line item" + (line.muted ? " muted" : ""));
    const [mark, rest] = marker(line.text);
    const bullet = mark || (line.bullet && GLYPHS[line.bullet] ? line.bullet : null);
    if (bullet) node.appendChild(glyph(bullet));
    node.appendChild(el("span")).appendChild(rich(rest));
    return node;
  }

  // Lines to paste into a shell, as one block: each word unbreakable (a flag never splits at
  // its hyphens), lines wrapping only between words, and a button that copies the block.
  function codeBlock(lines) {
    const box = el("div", "codebox");
    const pre = el("pre", "line code");
    lines.forEach((line, i) => {
      if (i) pre.append("\n");
      for (const part of line.split(/( +)/)) {
        if (/^ +$/.test(part)) pre.append(part);
        else if (part) pre.appendChild(el("span", "tok", part));
      }
    });
    const copy = button("copy-code", null, "copy", "copy");
    copy.addEventListener("click", () => copyText(lines.join("\n"), copy));
    box.append(pre, copy);
    return box;
  }

  async function copyText(text, done) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      const area = el("textarea");
      area.value = text;
      done.after(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    done.textContent = t("copied_short");
    setTimeout(() => (done.textContent = t("copy")), 2000);
  }

  // A fold's lines as nodes: consecutive command lines become one code block.
  function lineNodes(list) {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      if (!list[i].code) {
        out.push(lineNode(list[i]));
        continue;
      }
      const block = [];
      while (i < list.length && list[i].code) block.push(list[i++].text);
      i--;
      out.push(codeBlock(block));
    }
    return out;
  }

  // A collapsible section; ``load`` fills it the first time it opens (and returns its lines).
  function fold(heading, lines, load) {
    const box = el("details");
    const summary = el("summary");
    summary.appendChild(rich(String(heading || "").replace(/[：:]\s*$/, "")));
    const body = el("div", "fold");
    const fill = (list) => body.replaceChildren(...lineNodes(list));
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

  // --- the plan's chart: a thumbnail on the card, full size on request, and its words -------
  function shortGpu(name) {
    return String(name || "").replace(/\b(NVIDIA|GeForce|Tesla) /g, "");
  }

  // The plan's options as the chart draws them: each one's setup, memory, price and speed.
  function chartRows(plan) {
    const options = [plan.recommendation, ...(plan.alternatives || [])].filter(Boolean).slice(0, 6);
    return options.map((o, i) => {
      const parts = o.memory_gib || {};
      const used = parts.total !== undefined ? parts.total : Object.values(parts).reduce((a, b) => a + b, 0);
      const cost = o.monthly_cost || o.cost || {};
      return {
        label: `${o.count}× ${shortGpu(o.gpu_name)}`,
        used: Math.round(used),
        capacity: Math.round(o.capacity_gib),
        price: priceOf({}, o) || "",
        amount: typeof cost.amount === "number" ? cost.amount : null,
        currency: cost.currency || "",
        speed: o.aggregate_tokens_per_s || o.tokens_per_s || o.decode_tokens_per_s || null,
        pick: i === 0,
      };
    });
  }

  // The chart's words (its text alternative) and the rows its thumbnail compares by price.
  function chartOf(plan) {
    const rows = chartRows(plan);
    const lines = rows.map((r) => {
      const memory = `${t("chart_memory")} ${r.used}/${r.capacity} GiB`;
      return `${r.label}: ${memory} · ${r.price}` + (r.speed ? ` · ${Math.round(r.speed)} tokens/s` : "");
    });
    return { words: t("chart_caption") + ": " + lines.join("; "), rows };
  }

  // The card's thumbnail, drawn with the card (its room is taken at once, nothing moves later):
  // the price comparison as bars in the page's own type, readable at any size; pressed, it opens
  // the chart full size. An older history entry kept only the chart's words.
  function thumbnail(chart, openChart) {
    const words = typeof chart === "string" ? chart : chart.words;
    const rows = typeof chart === "string" ? [] : chart.rows.filter((r) => r.price);
    const figure = el("figure", "chart");
    figure.dataset.role = "chart";
    const open = button("thumb", undefined, "chart-open");
    if (rows.length) {
      open.appendChild(word("span", "thumb-title", "chart_prices"));
      const currency = rows[0].currency;
      const most = Math.max(...rows.map((r) => (r.currency === currency && r.amount) || 0), 1);
      const bars = el("span", "bars"); // one grid: every row's bar starts and ends at the same place
      open.appendChild(bars);
      for (const r of rows) {
        const row = el("span", "bar-row" + (r.pick ? " chosen" : ""));
        const track = el("span", "bar-track");
        const bar = el("span", "bar");
        const share = r.currency === currency && r.amount ? r.amount / most : 0;
        bar.style.width = Math.max(2, Math.round(share * 100)) + "%";
        track.appendChild(bar);
        row.append(el("span", "bar-label", r.label), track, el("span", "bar-price", r.price));
        bars.appendChild(row);
      }
    }
    const coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
    open.appendChild(word("span", "thumb-hint", coarse ? "chart_open_touch" : "chart_open_pointer"));
    const said = el("span", "sr", words); // the whole chart in words, for a screen reader
    said.dataset.role = "chart-words";
    open.appendChild(said);
    open.addEventListener("click", () => openChart(words, open));
    figure.appendChild(open);
    return figure;
  }

  function dataUrl(blob) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = reject;
      reader.readAsDataURL(blob);
    });
  }

