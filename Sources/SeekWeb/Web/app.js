// Seek's web UI: progressive enhancement of the pages the server renders. Text from providers is
// only ever inserted with textContent or attributes, never as HTML.
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

const STATUS_LABELS = {
  ok: (n) => (n === 1 ? "1 result" : `${n} results`),
  empty: () => "no results",
  timeout: () => "timed out",
  error: () => "failed",
  rateLimited: () => "rate limited",
  unauthorized: () => "key refused",
  skipped: () => "no key",
  suspended: () => "cooling down",
  unsupported: () => "cannot search",
};

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function idPath(id) {
  const colon = id.indexOf(":");
  return `${encodeURIComponent(id.slice(0, colon))}:${encodeURIComponent(id.slice(colon + 1))}`;
}

// ---- Layout switch (list / grid), remembered ------------------------------------------------

function applyView(view) {
  const list = $("#results");
  if (!list || list.classList.contains("trending") || document.body.dataset.page === "favorites") return;
  list.classList.toggle("grid", view === "grid");
  for (const button of $$("[data-view]")) button.setAttribute("aria-pressed", String(button.dataset.view === view));
}

function setUpViews() {
  let stored = "list";
  try { stored = localStorage.getItem("seek.view") || "list"; } catch { /* storage off */ }
  applyView(stored);
  for (const button of $$("[data-view]")) {
    button.addEventListener("click", () => {
      try { localStorage.setItem("seek.view", button.dataset.view); } catch { /* storage off */ }
      applyView(button.dataset.view);
    });
  }
}

// ---- Results: one element per item, the hooks of DESIGN's "Web UI" ------------------------------

const favorites = new Set();

function resultElement(item) {
  const others = (item.sources || []).map((s) => s.id).filter((id) => id !== item.id);
  const href = `/items/${idPath(item.id)}` + (others.length ? `?also=${encodeURIComponent(others.join(","))}` : "");
  const kind = item.kind || "book";
  const cover = el("a", { class: `cover cover-${kind}`, href, tabindex: "-1", "aria-hidden": "true" });
  if (item.imageURL) {
    const [w, h] = kind === "gif" ? [200, 200] : [180, 270];
    cover.append(el("img", { src: `/api/v1/items/${idPath(item.id)}/image?size=medium`, alt: "", loading: "lazy", decoding: "async", width: w, height: h }));
  } else {
    cover.append(el("span", { class: "noimage" }, (item.title || "?").slice(0, 1).toUpperCase()));
  }
  const meta = el("p", { class: "meta" });
  if (item.creators && item.creators.length) meta.append(el("span", { class: "creators" }, item.creators.join(", ")));
  if (item.year) meta.append(el("span", { class: "year" }, String(item.year)));
  const sources = el("p", { class: "sources" });
  for (const source of item.sources || [{ provider: item.provider }]) sources.append(el("span", { class: "badge" }, providerName(source.provider)));
  const info = el("div", { class: "info" },
    el("h2", { class: "title" }, el("a", { href }, item.title || "")),
    item.subtitle ? el("p", { class: "subtitle" }, item.subtitle) : null,
    meta, sources);
  const star = el("button", { type: "button", class: "fav", "data-favorite-toggle": "", "data-id": item.id, "aria-pressed": String(favorites.has(item.id)), title: "Favourite" },
    el("span", { "aria-hidden": "true" }, "★"), el("span", { class: "visually-hidden" }, `Favourite: ${item.title || ""}`));
  return el("li", { class: "result", "data-item-id": item.id, "data-kind": kind }, cover, info, star);
}

const names = {};
function providerName(id) { return names[id] || id; }

function rememberNames() {
  for (const node of $$("[data-provider]")) {
    const name = $(".pname", node);
    if (name) names[node.dataset.provider] = name.textContent;
  }
  for (const star of $$("[data-favorite-toggle]")) if (star.getAttribute("aria-pressed") === "true") favorites.add(star.dataset.id);
  // A streamed page has no stars yet: the server lists the visitor's favourites on the result list.
  const list = $("#results");
  for (const id of (list && list.dataset.favorites ? list.dataset.favorites.split(" ") : [])) if (id) favorites.add(id);
}

function setStatus(outcome) {
  const strip = $("#providers");
  if (!strip) return;
  const id = outcome.id || outcome.provider;
  let node = $$("[data-provider]", strip).find((n) => n.dataset.provider === id);
  if (!node) {
    node = el("li", { class: "provider", "data-provider": id }, el("span", { class: "dot", "aria-hidden": "true" }),
      el("span", { class: "pname" }, providerName(id)), " ", el("span", { class: "pstate" }), " ", el("span", { class: "ptime" }));
    strip.append(node);
  }
  node.dataset.status = outcome.status;
  const label = STATUS_LABELS[outcome.status];
  $(".pstate", node).textContent = label ? label(outcome.count || 0) : outcome.status;
  let time = $(".ptime", node);
  if (!time) { time = el("span", { class: "ptime" }); node.append(" ", time); }
  time.textContent = outcome.status === "skipped" || outcome.status === "suspended" ? "" : `${outcome.elapsedMs} ms`;
  node.title = outcome.error || "";
}

async function showCooldowns() {
  const waiting = $$("[data-provider][data-status=suspended]").filter((n) => !$(".puntil", n));
  if (!waiting.length) return;
  try {
    const answer = await fetch("/api/v1/providers", { headers: { accept: "application/json" } });
    const providers = await answer.json();
    for (const provider of providers.providers || []) {
      if (!provider.suspendedUntil) continue;
      const node = waiting.find((n) => n.dataset.provider === provider.id);
      if (!node) continue;
      const when = new Date(provider.suspendedUntil);
      node.append(" ", el("span", { class: "puntil" }, "back at ", el("time", { datetime: provider.suspendedUntil }, when.toLocaleTimeString())));
    }
  } catch { /* the strip keeps what it has */ }
}

function setNotices(query, items, outcomes) {
  const notices = $("#notices");
  if (!notices) return;
  notices.replaceChildren();
  const answered = outcomes.some((o) => o.status === "ok" || o.status === "empty");
  if (outcomes.length && !answered) {
    const list = el("ul");
    for (const o of outcomes) {
      const label = STATUS_LABELS[o.status];
      list.append(el("li", {}, el("strong", {}, providerName(o.id)), `: ${label ? label(o.count) : o.status}${o.error ? ` (${o.error})` : ""}`));
    }
    notices.append(el("div", { class: "notice failed", "data-all-failed": "", role: "alert" },
      el("h2", {}, "No provider answered"), el("p", {}, `Every provider failed or was skipped for “${query}”:`), list,
      el("p", {}, "Try again in a minute (a provider that failed often rests for a while), check the network, or search a single provider with a bang such as !ol.")));
  } else if (!items.length) {
    const link = el("a", { href: "/trending" }, "what is trending");
    notices.append(el("div", { class: "notice", "data-empty": "" }, el("h2", {}, `No results for “${query}”`),
      el("p", {}, "Every provider answered, none had a match. Try fewer or other words, check the spelling, or look at ", link, ".")));
  }
}

function setCount(text) {
  const count = $("#count");
  if (count) count.textContent = text;
}

// ---- A public instance's limit: the visitor is told what happened and when to try again --------

function showLimited(answer) {
  const seconds = Number.parseInt(answer.headers.get("Retry-After") || "", 10);
  const when = Number.isFinite(seconds) && seconds > 0 ? `in ${seconds} seconds` : "in a moment";
  setCount(`Too many searches from your address: try again ${when}.`);
  const count = $("#count");
  if (count) count.setAttribute("data-rate-limited", "");
  // No provider was asked: the strip says so instead of waiting for ever.
  for (const node of $$("[data-provider][data-status=pending]")) {
    node.dataset.status = "skipped";
    $(".pstate", node).textContent = "not asked";
    const time = $(".ptime", node);
    if (time) time.textContent = "";
  }
}

// ---- Streaming: each provider's batch as it answers, then the merged order ---------------------

async function stream(list) {
  const query = list.dataset.query;
  const params = new URLSearchParams({ q: query });
  if (list.dataset.providers) params.set("providers", list.dataset.providers);
  let summary = null;
  try {
    const answer = await fetch(`/api/v1/search/stream?${params}`, { headers: { accept: "application/x-ndjson" } });
    if (answer.status === 429) { showLimited(answer); return; }
    if (!answer.ok || !answer.body) throw new Error(`HTTP ${answer.status}`);
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += value;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line) continue;
        const message = JSON.parse(line);
        if (message.type === "batch") {
          setStatus(message);
          appendItems(list, message.items || []);
          setCount(`${list.children.length} so far…`);
        } else if (message.type === "summary") {
          summary = message;
        }
      }
      if (done) break;
    }
  } catch (error) {
    setCount("The search stopped: reload the page to try again.");
    return;
  }
  if (!summary) return;
  // The merged order replaces the per-provider batches: the same books from two providers become one.
  list.replaceChildren(...summary.items.map(resultElement));
  for (const outcome of summary.providers) setStatus(outcome);
  for (const node of $$("[data-provider][data-status=pending]")) node.remove();
  setNotices(query, summary.items, summary.providers);
  setCount(summary.items.length === 1 ? "1 result" : `${summary.items.length} results`);
  list.dataset.next = summary.next || "";
  list.dataset.stream = "0";
  showCooldowns();
  watchEnd(list);
}

function appendItems(list, items) {
  const seen = new Set($$("[data-item-id]", list).map((n) => n.dataset.itemId));
  let added = 0;
  for (const item of items) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    list.append(resultElement(item));
    added += 1;
  }
  return added;
}

// ---- Infinite scroll: the next page when the end of the list comes into view -------------------

let loading = false;
let observer = null;

async function loadNext(list) {
  const next = list.dataset.next;
  if (loading || !next) return;
  loading = true;
  const params = new URLSearchParams({ q: list.dataset.query, cursor: next });
  if (list.dataset.providers) params.set("providers", list.dataset.providers);
  try {
    const answer = await fetch(`/api/v1/search?${params}`, { headers: { accept: "application/json" } });
    if (answer.status === 429) { showLimited(answer); list.dataset.next = ""; return; }
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const page = await answer.json();
    appendItems(list, page.items || []);
    list.dataset.next = page.next || "";
    setCount(`${list.children.length} results`);
  } catch {
    list.dataset.next = next;
  } finally {
    loading = false;
  }
  const link = $("#next-page");
  if (!list.dataset.next) {
    if (link) link.remove();
    if (observer) observer.disconnect();
  } else {
    if (link) link.href = `/search?${params.toString().replace(/cursor=[^&]*/, `cursor=${encodeURIComponent(list.dataset.next)}`)}`;
    // Still in view (a short page): keep going.
    const pager = $("#pager");
    if (pager && pager.getBoundingClientRect().top < window.innerHeight) loadNext(list);
  }
}

function watchEnd(list) {
  const pager = $("#pager");
  if (!pager || !("IntersectionObserver" in window)) return;
  if (observer) observer.disconnect();
  observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) loadNext(list);
  }, { rootMargin: "400px 0px" });
  observer.observe(pager);
}

// ---- Favourites: the star toggles in place ------------------------------------------------------

async function toggleFavorite(button) {
  const id = button.dataset.id;
  const on = button.getAttribute("aria-pressed") !== "true";
  button.disabled = true;
  try {
    const answer = await fetch(`/api/v1/favorites/${idPath(id)}`, { method: on ? "PUT" : "DELETE" });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    for (const star of $$("[data-favorite-toggle]")) if (star.dataset.id === id) star.setAttribute("aria-pressed", String(on));
    if (on) favorites.add(id); else favorites.delete(id);
  } catch {
    button.title = "Could not change the favourite: try again";
  } finally {
    button.disabled = false;
  }
}

// ---- Suggestions: debounced, into the search box's datalist -------------------------------------

function setUpSuggestions() {
  const box = $("input[name=q]");
  const options = $("#suggestions");
  if (!box || !options) return;
  let timer = 0;
  let asked = "";
  box.addEventListener("input", () => {
    clearTimeout(timer);
    const prefix = box.value.trim();
    if (prefix.length < 2) { options.replaceChildren(); return; }
    timer = setTimeout(async () => {
      asked = prefix;
      try {
        const answer = await fetch(`/api/v1/suggest?${new URLSearchParams({ q: prefix, limit: "8" })}`);
        if (!answer.ok || asked !== prefix) return;
        const document = await answer.json();
        options.replaceChildren(...(document.suggestions || []).map((s) => { const o = el("option"); o.value = s; return o; }));
      } catch { /* no suggestions */ }
    }, 250);
  });
}

// ---- Keyboard: / to search, arrows through results, Enter opens ---------------------------------

function setUpKeys() {
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      const box = $("input[name=q]");
      if (box) { box.focus(); box.select(); }
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const links = $$("#results [data-item-id] .title a");
    if (!links.length) return;
    const current = links.findIndex((a) => a === document.activeElement || a.closest("[data-item-id]")?.contains(document.activeElement));
    const next = current < 0 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, current + step));
    event.preventDefault();
    links[next].focus();
    links[next].scrollIntoView({ block: "nearest" });
  });
}

// ---- Images: a cover that does not load leaves its reserved box with a letter -------------------

function setUpImages() {
  document.addEventListener("error", (event) => {
    const image = event.target;
    if (!(image instanceof HTMLImageElement)) return;
    const box = image.parentElement;
    if (!box) return;
    const title = box.closest("[data-item-id]")?.querySelector(".title")?.textContent || "?";
    image.replaceWith(el("span", { class: "noimage" }, title.trim().slice(0, 1).toUpperCase()));
  }, true);
}

function setUpHistory() {
  const button = $("[data-clear-history]");
  if (!button) return;
  button.addEventListener("click", async () => {
    const answer = await fetch("/api/v1/history", { method: "DELETE" });
    if (answer.ok) window.location.reload();
  });
}

function setUpSearchForms() {
  // With the script on, a search page streams: results appear as each provider answers.
  for (const form of $$("form.searchform")) form.append(el("input", { type: "hidden", name: "stream", value: "1" }));
}

function start() {
  document.documentElement.classList.add("js");
  rememberNames();
  setUpViews();
  setUpSearchForms();
  setUpSuggestions();
  setUpKeys();
  setUpImages();
  setUpHistory();
  document.addEventListener("click", (event) => {
    const star = event.target instanceof Element ? event.target.closest("[data-favorite-toggle]") : null;
    if (!star) return;
    // The star is a form's submit button, so that it works without JavaScript; with it, it toggles in place.
    event.preventDefault();
    toggleFavorite(star);
  });
  const list = $("#results");
  if (list && document.body.dataset.page === "search") {
    if (list.dataset.stream === "1") stream(list);
    else { showCooldowns(); watchEnd(list); }
  }
}

start();