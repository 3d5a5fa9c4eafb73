/// The script and style sheet of the web UI, served from `/static/` (literals: no resource bundle
/// to find next to a statically linked binary, no build step). The script is a plain ES module.
enum WebAssets {
    static let script = #"""
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
"""#

    static let styles = #"""
/* Seek's web UI. No inline styles anywhere (the Content-Security-Policy forbids them). */
:root {
  --bg: #f7f7f5; --fg: #1d1d1f; --muted: #5b5b66; --card: #fff; --line: #d9d9de;
  --accent: #1a56db; --ok: #137333; --warn: #a15c00; --bad: #b3261e; --focus: #ffbf47;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK KR", "Noto Sans KR", sans-serif;
  color: var(--fg); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; line-height: 1.45; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px #1d1d1f; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.skip { position: absolute; left: -999px; top: 0; background: var(--fg); color: #fff; padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; }

.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1rem; background: #fff; border-bottom: 1px solid var(--line); }
.brand { font-weight: 800; font-size: 1.35rem; color: var(--fg); text-decoration: none; letter-spacing: -.02em; }
.searchform { display: flex; flex: 1 1 18rem; gap: .5rem; min-width: 0; }
.searchform input { flex: 1; min-width: 0; font: inherit; padding: .5rem .75rem; border: 1px solid #8a8a94; border-radius: .5rem; background: #fff; color: var(--fg); }
button { font: inherit; cursor: pointer; }
.searchform button, [data-clear-history], .views button { padding: .45rem .9rem; border-radius: .5rem; border: 1px solid #8a8a94; background: #fff; color: var(--fg); }
.searchform button { background: var(--accent); border-color: var(--accent); color: #fff; }
.top nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.top nav a { text-decoration: none; font-weight: 600; }
.top nav a[aria-current=page] { text-decoration: underline; text-underline-offset: .3em; }

main { flex: 1; width: 100%; max-width: 1280px; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
.bottom { padding: 1rem; color: var(--muted); font-size: .875rem; text-align: center; border-top: 1px solid var(--line); background: #fff; }
.bottom p { margin: 0; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: .25rem; padding: 0 .3rem; font-size: .85em; background: #fafafa; }

.hero { padding: 2rem 0 1rem; }
.hero h1 { font-size: 2.5rem; margin: 0 0 .5rem; }
.chips { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; padding: 0; }
.chips a { display: inline-block; padding: .25rem .75rem; border-radius: 1rem; background: #fff; border: 1px solid var(--line); text-decoration: none; }

/* Provider status strip */
.strip ul { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; margin: 0 0 .75rem; padding: 0; }
.provider { display: inline-flex; align-items: center; gap: .35rem; padding: .3rem .7rem; border-radius: 1rem; background: #fff; border: 1px solid var(--line); font-size: .875rem; }
.provider .dot { width: .6rem; height: .6rem; border-radius: 50%; background: #9a9aa3; flex: none; }
.provider[data-status=ok] .dot { background: var(--ok); }
.provider[data-status=empty] .dot { background: #6b7280; }
.provider[data-status=pending] .dot { background: var(--accent); animation: pulse 1s infinite alternate; }
.provider[data-status=timeout] .dot, .provider[data-status=rateLimited] .dot, .provider[data-status=suspended] .dot { background: var(--warn); }
.provider[data-status=error] .dot, .provider[data-status=unauthorized] .dot { background: var(--bad); }
.provider[data-status=timeout], .provider[data-status=error], .provider[data-status=unauthorized] { border-color: #e5b8b4; }
.pname { font-weight: 600; }
.ptime, .puntil { color: var(--muted); }
@keyframes pulse { from { opacity: .35; } to { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .provider[data-status=pending] .dot { animation: none; } }

.toolbar { display: flex; justify-content: space-between; align-items: center; gap: 1rem; margin-bottom: .5rem; }
.toolbar p { margin: 0; color: var(--muted); }
.views { display: flex; gap: .25rem; }
.views button[aria-pressed=true] { background: var(--fg); color: #fff; border-color: var(--fg); }
html:not(.js) .views { display: none; }

.notice { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: .5rem; padding: .75rem 1rem; margin: 1rem 0; }
.notice h2, .notice h1 { margin: 0 0 .25rem; font-size: 1.15rem; }
.notice.failed { border-left-color: var(--bad); }

/* Results: list by default, grid on request */
.results { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; grid-template-columns: 1fr; }
.result { position: relative; display: grid; grid-template-columns: 72px 1fr auto; gap: .75rem; align-items: start; background: var(--card); border: 1px solid var(--line); border-radius: .6rem; padding: .6rem; }
.result:focus-within { border-color: var(--accent); }
.cover { display: block; width: 100%; aspect-ratio: 2 / 3; background: #ececef; border-radius: .35rem; overflow: hidden; }
.cover-gif { aspect-ratio: 1 / 1; }
.cover img, .detail-cover img { display: block; width: 100%; height: 100%; object-fit: cover; }
.noimage { display: flex; width: 100%; height: 100%; align-items: center; justify-content: center; font-size: 1.6rem; font-weight: 700; color: #7a7a85; }
.info { min-width: 0; }
.title { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.title a { color: var(--fg); text-decoration: none; }
.title a:hover, .title a:focus-visible { text-decoration: underline; color: var(--accent); }
.subtitle, .meta { margin: .15rem 0 0; color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
.meta .creators + .year::before { content: " · "; }
.sources { margin: .35rem 0 0; display: flex; flex-wrap: wrap; gap: .25rem; }
.badge { font-size: .75rem; padding: .05rem .45rem; border-radius: .75rem; background: #eef2ff; color: #1e3a8a; }
.fav-form { display: contents; }
.fav { border: 1px solid var(--line); background: #fff; color: #8a8a94; border-radius: 50%; width: 2.25rem; height: 2.25rem; font-size: 1.1rem; line-height: 1; }
.fav[aria-pressed=true] { color: #b45309; border-color: #f59e0b; background: #fff7e6; }
.fav-wide { width: auto; border-radius: .5rem; padding: .35rem .8rem; font-size: 1rem; color: var(--fg); }

.results.grid { grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); }
.results.grid .result { grid-template-columns: 1fr; padding: .5rem; }
.results.grid .fav { position: absolute; top: .9rem; right: .9rem; background: rgba(255, 255, 255, .92); }
.results.grid .title { font-size: .95rem; }

.pager { padding: 1.5rem 0; text-align: center; }
.pager a { font-weight: 600; }

/* Detail */
.detail { display: grid; grid-template-columns: minmax(0, 280px) 1fr; gap: 1.5rem; align-items: start; }
.detail-cover { width: 100%; aspect-ratio: 2 / 3; background: #ececef; border-radius: .5rem; overflow: hidden; }
.detail-cover.cover-gif { aspect-ratio: 1 / 1; }
.detail h1 { margin: 0; font-size: 1.8rem; overflow-wrap: anywhere; }
.detail h2 { font-size: 1.1rem; margin: 1.25rem 0 .4rem; }
.description { white-space: pre-line; max-width: 70ch; }
.pairs { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
.pairs dt { font-weight: 600; }
.pairs dd { margin: 0; overflow-wrap: anywhere; }
.provenance { border-collapse: collapse; }
.provenance th, .provenance td { text-align: left; padding: .25rem .75rem .25rem 0; border-bottom: 1px solid var(--line); }
.source-list { padding-left: 1.1rem; }
.history-list li { margin: .35rem 0; }
.muted { color: var(--muted); }

@media (max-width: 600px) {
  main { padding: .75rem; }
  .top nav ul { gap: .75rem; }
  .detail { grid-template-columns: 1fr; }
  .detail-cover { max-width: 220px; }
  .results.grid { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .toolbar { flex-wrap: wrap; }
}
"""#
}
