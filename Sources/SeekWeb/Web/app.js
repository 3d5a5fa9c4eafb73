// Seek's web UI: progressive enhancement of the pages the server renders. Text from providers is
// only ever inserted with textContent or attributes, never as HTML.
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
// The path the instance is served under ("" or "/books", SEEK_BASE_PATH): this script's own address
// less /static/app.js. Every URL the script makes starts with it.
const BASE = new URL(import.meta.url).pathname.replace(/\/static\/app\.js$/, "");

// The page's words, in its language: the server writes them into a JSON block (never run as script).
const STRINGS = (() => {
  try { return JSON.parse(document.getElementById("seek-strings")?.textContent || "{}"); } catch { return {}; }
})();

// The string `key` with {0}, {1}… replaced by `values`.
function t(key, ...values) {
  let text = STRINGS[key] || key;
  values.forEach((value, index) => { text = text.split(`{${index}}`).join(String(value)); });
  return text;
}

function resultsText(n) { return n === 1 ? t("result1") : t("resultsN", n); }

const STATUS_LABELS = {
  ok: (n) => (n === 1 ? t("statusOk1") : t("statusOkN", n)),
  empty: () => t("statusEmpty"),
  timeout: () => t("statusTimeout"),
  error: () => t("statusError"),
  rateLimited: () => t("statusRateLimited"),
  unauthorized: () => t("statusUnauthorized"),
  skipped: () => t("statusSkipped"),
  suspended: () => t("statusSuspended"),
  unsupported: () => t("statusUnsupported"),
};

// A time of day in the reader's own zone and language ("16:05").
function clock(date) {
  return date.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" });
}

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

// The grouping toggle (work / edition) reloads the search when it changes; without a script its
// button does. Infinite scroll carries the choice (`data-group`) into every next page.
function setUpGrouping() {
  for (const form of $$("form[data-grouping]")) {
    const select = $("select[name=group]", form);
    if (select) select.addEventListener("change", () => form.submit());
  }
}

function setUpViews() {
  setUpGrouping();
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
  const href = `${BASE}/items/${idPath(item.id)}` + (others.length ? `?also=${encodeURIComponent(others.join(","))}` : "");
  const kind = item.kind || "book";
  const cover = el("a", { class: `cover cover-${kind}`, href, tabindex: "-1", "aria-hidden": "true" });
  // Every item has an image: the source's, or the cover the server draws when it has none.
  const [w, h] = kind === "gif" ? [200, 200] : [180, 270];
  cover.append(el("img", { src: `${BASE}/api/v1/items/${idPath(item.id)}/image?size=medium`, alt: "", loading: "lazy", decoding: "async", width: w, height: h }));
  const meta = el("p", { class: "meta" });
  if (item.creators && item.creators.length) meta.append(el("span", { class: "creators" }, item.creators.join(", ")));
  if (item.year) meta.append(el("span", { class: "year" }, String(item.year)));
  const sources = el("p", { class: "sources" });
  if (item.owned) {
    const formats = (item.owned.formats || []).join(", ");
    sources.append(el("span", { class: "badge owned", "data-owned-formats": "" }, formats ? t("ownedFormats", formats) : t("owned")));
  }
  for (const source of item.sources || [{ provider: item.provider }]) sources.append(el("span", { class: "badge" }, providerName(source.provider)));
  const info = el("div", { class: "info" },
    el("h2", { class: "title" }, el("a", { href }, item.title || "")),
    item.subtitle ? el("p", { class: "subtitle" }, item.subtitle) : null,
    meta, sources);
  const star = el("button", { type: "button", class: "fav", "data-favorite-toggle": "", "data-id": item.id, "aria-pressed": String(favorites.has(item.id)), title: t("favorite") },
    el("span", { "aria-hidden": "true" }, "★"), el("span", { class: "visually-hidden" }, t("favoriteOf", item.title || "")));
  const attributes = { class: "result", "data-item-id": item.id, "data-kind": kind };
  if (item.owned) attributes["data-owned"] = "true";
  return el("li", attributes, cover, info, star);
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

// A provider's part of the strip: `add` counts the items of a further page on top of those shown.
function setStatus(outcome, add = false) {
  const strip = $("#providers");
  if (!strip) return;
  const id = outcome.id || outcome.provider;
  let node = $$("[data-provider]", strip).find((n) => n.dataset.provider === id);
  if (!node) {
    node = el("li", { class: "provider", "data-provider": id }, el("span", { class: "dot", "aria-hidden": "true" }),
      el("span", { class: "pname" }, providerName(id)), " ", el("span", { class: "pstate" }), " ", el("span", { class: "ptime" }));
    strip.append(node);
  }
  const count = (add ? Number.parseInt(node.dataset.count || "0", 10) || 0 : 0) + (outcome.count || 0);
  // A further page's failure does not hide what the first pages found.
  const status = add && count > 0 && outcome.status !== "ok" ? "ok" : outcome.status;
  node.dataset.status = status;
  node.dataset.count = String(count);
  const label = STATUS_LABELS[status];
  $(".pstate", node).textContent = label ? label(count) : status;
  let time = $(".ptime", node);
  if (!time) { time = el("span", { class: "ptime" }); node.append(" ", time); }
  time.textContent = outcome.status === "skipped" || outcome.status === "suspended" ? "" : `${outcome.elapsedMs} ms`;
  node.removeAttribute("title");
}

async function showCooldowns() {
  const waiting = $$("[data-provider][data-status=suspended]").filter((n) => !$(".puntil", n));
  if (!waiting.length) return;
  try {
    const answer = await fetch(`${BASE}/api/v1/providers`, { headers: { accept: "application/json" } });
    const providers = await answer.json();
    for (const provider of providers.providers || []) {
      if (!provider.suspendedUntil) continue;
      const node = waiting.find((n) => n.dataset.provider === provider.id);
      if (!node) continue;
      const when = new Date(provider.suspendedUntil);
      node.append(" ", el("span", { class: "puntil" }, el("time", { datetime: provider.suspendedUntil }, t("backAt", clock(when)))));
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
      // The status in words only: an error's technical cause stays in the server's log.
      list.append(el("li", {}, el("strong", {}, providerName(o.id || o.provider)), `: ${label ? label(o.count) : o.status}`));
    }
    notices.append(el("div", { class: "notice failed", "data-all-failed": "", role: "alert" },
      el("h2", {}, t("noneAnswered")), el("p", {}, t("noneAnsweredFor", query)), list, el("p", {}, t("noneAnsweredHint"))));
  } else if (!items.length) {
    const link = el("a", { href: `${BASE}/trending` }, t("whatIsTrending"));
    notices.append(el("div", { class: "notice", "data-empty": "" }, el("h2", {}, t("noResultsFor", query)),
      el("p", {}, t("noResultsHint"), " ", link, ".")));
  }
}

function setCount(text) {
  const count = $("#count");
  if (count) count.textContent = text;
}

// ---- A public instance's limit: the visitor is told what happened and when to try again --------

function showLimited(answer) {
  const seconds = Number.parseInt(answer.headers.get("Retry-After") || "", 10);
  const when = !Number.isFinite(seconds) || seconds <= 0 ? t("inAMoment") : seconds === 1 ? t("inSeconds1") : t("inSeconds", seconds);
  setCount(t("limited", when));
  const count = $("#count");
  if (count) count.setAttribute("data-rate-limited", "");
  // No provider was asked: the strip says so instead of waiting for ever.
  for (const node of $$("[data-provider][data-status=pending]")) {
    node.dataset.status = "skipped";
    $(".pstate", node).textContent = t("notAsked");
    const time = $(".ptime", node);
    if (time) time.textContent = "";
  }
}

// ---- Streaming: each provider's batch as it answers, then the merged order ---------------------

async function stream(list) {
  const query = list.dataset.query;
  const params = new URLSearchParams({ q: query });
  if (list.dataset.providers) params.set("providers", list.dataset.providers);
  if (list.dataset.group && list.dataset.group !== "work") params.set("group", list.dataset.group);
  let summary = null;
  try {
    const answer = await fetch(`${BASE}/api/v1/search/stream?${params}`, { headers: { accept: "application/x-ndjson" } });
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
          setCount(t("soFar", list.children.length));
        } else if (message.type === "summary") {
          summary = message;
        }
      }
      if (done) break;
    }
  } catch (error) {
    setCount(t("streamStopped"));
    return;
  }
  if (!summary) return;
  // The merged order replaces the per-provider batches: the same books from two providers become one.
  list.replaceChildren(...summary.items.map(resultElement));
  for (const outcome of summary.providers) setStatus(outcome);
  for (const node of $$("[data-provider][data-status=pending]")) node.remove();
  setNotices(query, summary.items, summary.providers);
  setCount(resultsText(summary.items.length));
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
  if (list.dataset.group && list.dataset.group !== "work") params.set("group", list.dataset.group);
  try {
    const answer = await fetch(`${BASE}/api/v1/search?${params}`, { headers: { accept: "application/json" } });
    if (answer.status === 429) { showLimited(answer); list.dataset.next = ""; return; }
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const page = await answer.json();
    appendItems(list, page.items || []);
    list.dataset.next = page.next || "";
    // The strip counts what each source gave over every page shown, as the count does the rows.
    for (const outcome of page.providers || []) setStatus(outcome, true);
    setCount(resultsText(list.children.length));
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
    if (link) link.href = `${BASE}/search?${params.toString().replace(/cursor=[^&]*/, `cursor=${encodeURIComponent(list.dataset.next)}`)}`;
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
    const answer = await fetch(`${BASE}/api/v1/favorites/${idPath(id)}`, { method: on ? "PUT" : "DELETE" });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    for (const star of $$("[data-favorite-toggle]")) if (star.dataset.id === id) star.setAttribute("aria-pressed", String(on));
    if (on) favorites.add(id); else favorites.delete(id);
  } catch {
    button.title = t("favoriteFailed");
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
        const answer = await fetch(`${BASE}/api/v1/suggest?${new URLSearchParams({ q: prefix, limit: "8" })}`);
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

// ---- Images: a cover that does not load (the server unreachable) leaves a box with the title -----

function setUpImages() {
  document.addEventListener("error", (event) => {
    const image = event.target;
    if (!(image instanceof HTMLImageElement)) return;
    const box = image.parentElement;
    if (!box) return;
    const holder = box.closest("[data-item-id]");
    const title = holder?.querySelector(".title, h1")?.textContent || "";
    image.replaceWith(el("span", { class: "noimage" }, title.trim()));
  }, true);
}

// Times the server wrote in its own zone, again in the reader's.
function localTimes() {
  for (const time of $$(".puntil time[datetime]")) {
    const when = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(when.getTime())) time.textContent = t("backAt", clock(when));
  }
}

function setUpHistory() {
  const button = $("[data-clear-history]");
  if (!button) return;
  button.addEventListener("click", async () => {
    const answer = await fetch(`${BASE}/api/v1/history`, { method: "DELETE" });
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
  localTimes();
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