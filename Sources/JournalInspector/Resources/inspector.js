// The SyncJournal inspector's pages. Each page is drawn from its /api/ endpoint; the URL (path
// and query) is the page's whole state, so a link pasted into a bug report opens the same view.
// Data are inserted as text nodes only, never as HTML: records hold whatever the app stored.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const page = location.pathname.replace(/^\//, "") || "timeline";
const pages = [["timeline", "Timeline"], ["syncs", "Sync runs"], ["soups", "Soups"], ["record", "Record"],
  ["conflicts", "Conflicts"], ["state", "Time travel"], ["store", "Store"]];
// Pages that show the current state only: their links drop asOf.
const presentOnly = new Set(["conflicts"]);
// Pages without an asOf follow the store: new entries another process appends are shown.
const followIntervalMs = 2000;

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// A link to a page of the inspector, keeping the token and, unless replaced, the asOf.
function link(path, query, text, keepAsOf = true) {
  const search = new URLSearchParams({ token });
  if (keepAsOf && params.get("asOf")) search.set("asOf", params.get("asOf"));
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  return h("a", { href: "/" + path + "?" + search.toString() }, text);
}

async function api(name, query) {
  const search = new URLSearchParams(query || {});
  search.set("token", token);
  const response = await fetch("/api/" + name + "?" + search.toString(), { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// The current query without the token: what the page's endpoint is asked.
function pageQuery() {
  const query = {};
  for (const [name, value] of params) if (name !== "token" && value !== "") query[name] = value;
  return query;
}

function json(value) { return JSON.stringify(value); }
function pretty(value) { return JSON.stringify(value, null, 2); }
function statusText(status) { return h("span", { class: "status-" + status }, status); }

function drawNav() {
  const nav = document.getElementById("nav");
  for (const [name, title] of pages) {
    const a = link(name, {}, title, !presentOnly.has(name));
    if (name === page) a.className = "current";
    nav.append(a);
  }
}

// The time slider: any page as of any entry. Moving it loads the same page with asOf=N.
function drawTravel(first, last, asOf) {
  const travel = document.getElementById("travel");
  travel.replaceChildren();
  if (!last) return;
  const value = asOf || last;
  const label = h("span", { id: "asof-label" }, "as of entry " + value + " of " + last);
  const slider = h("input", { type: "range", id: "asof", min: first || 1, max: last, value });
  slider.addEventListener("input", () => { label.textContent = "as of entry " + slider.value + " of " + last; });
  slider.addEventListener("change", () => {
    const search = new URLSearchParams(location.search);
    if (Number(slider.value) === last) search.delete("asOf"); else search.set("asOf", slider.value);
    location.search = search.toString();
  });
  travel.append(label, slider);
  if (asOf && asOf < last) travel.append(link(page, Object.assign(pageQuery(), { asOf: "" }), "now", false));
  else travel.append(h("span", { class: "muted" }, "following new entries"));
}

// A link to the entry `sequence`: the store as of it, as every page links an entry.
function entryLink(sequence) {
  return link("state", { asOf: sequence }, "#" + sequence, false);
}

// The mark of an entry that found open conflicts or resolved one; links to the Conflicts page.
function conflictMark(entry) {
  if (entry.conflicts) {
    return link("conflicts", { soup: entry.header.soup }, "⚠ " + entry.conflicts + " open conflict" +
      (entry.conflicts === 1 ? "" : "s"), false);
  }
  if (entry.resolvesConflict) return h("span", { class: "mark-resolved" }, "✓ conflict resolved");
  return null;
}

function entriesTable(entries) {
  return h("table", { class: "entries" },
    h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "time"), h("th", {}, "kind"), h("th", {}, "what")),
    entries.map((entry) => h("tr", {
      class: "entry" + (entry.conflicts ? " conflict-found" : "") + (entry.resolvesConflict ? " conflict-resolved" : "")
    },
      h("td", { class: "num" }, entryLink(entry.sequence)),
      h("td", { class: "mono" }, entry.timestamp),
      h("td", {}, link("timeline", { kind: entry.kind }, entry.kind)),
      h("td", {}, entry.summary, " ", (entry.records || []).map((record) =>
        link("record", { soup: record.soup, id: record.id }, "[" + record.id + "]")), " ", conflictMark(entry)))));
}

function groupTitle(group) {
  const name = group.syncName || (group.syncId ? "sync " + group.syncId : "");
  switch (group.type) {
    case "sync-run": {
      const parts = ["Sync run: ", link("syncs", { sync: group.syncId }, name), " (sync " + group.syncId + ") ",
        statusText(group.status || "RUNNING"), " — entries #" + group.first + "…#" + group.last];
      if (group.watermarkBefore !== undefined) {
        parts.push(", watermark " + json(group.watermarkBefore) + " → " + json(group.watermarkAfter ?? "…"));
      }
      if (group.fetchedCount !== undefined) parts.push(", fetched " + json(group.fetchedCount));
      if (group.error) parts.push(", error: " + group.error);
      if (group.conflicts) parts.push(" ", h("span", { class: "mark-conflict" }, "⚠ " + group.conflicts + " open conflict" +
        (group.conflicts === 1 ? "" : "s")));
      return parts;
    }
    case "local-edits": return ["Local edits in ", link("soups", { soup: group.soup }, group.soup || "?"),
      " — entries #" + group.first + "…#" + group.last];
    case "sync": return ["Sync ", name, group.status ? [" ", statusText(group.status)] : ""];
    default: return ["Entry #" + group.first];
  }
}

async function drawTimeline(main) {
  const data = await api("timeline", pageQuery());
  drawTravel(data.horizon, data.lastSequence, Number(params.get("asOf")) || 0);
  const form = h("form", { class: "filters", method: "get", action: "/timeline" },
    h("input", { type: "hidden", name: "token", value: token }),
    params.get("asOf") ? h("input", { type: "hidden", name: "asOf", value: params.get("asOf") }) : null,
    h("label", {}, "kind", h("select", { name: "kind" }, h("option", { value: "" }, "any"),
      data.kinds.map((kind) => h("option", { value: kind, selected: params.get("kind") === kind }, kind)))),
    ["soup", "sync", "record"].map((name) => h("label", {}, name + (name === "record" ? " (Id, with soup)" : ""),
      h("input", { name, value: params.get(name) || "", size: 14 }))),
    h("button", { type: "submit" }, "Filter"), link("timeline", {}, "clear"));
  main.append(h("h1", {}, "Timeline"), form,
    h("p", { class: "muted", id: "shown" }, data.shownEntries + " entries shown of " + data.asOf +
      (data.asOf < data.lastSequence ? " (as of entry " + data.asOf + ")" : "")));
  if (data.matchingEntries > data.shownEntries) {
    main.append(h("p", { class: "horizon" }, "Showing the newest " + data.shownEntries + " of " + data.matchingEntries +
      " matching entries. ", link("timeline", Object.assign(pageQuery(), { to: data.firstShown - 1 }), "Earlier entries")));
  }
  if (data.compacted) {
    main.append(h("div", { class: "horizon" }, "Horizon: entries before #" + data.horizon +
      " were compacted away; history starts there."));
  }
  for (const group of data.groups) {
    main.append(h("div", { class: "card " + group.type },
      h("div", { class: "title" }, groupTitle(group)), entriesTable(group.entries)));
  }
  if (!data.groups.length) main.append(h("p", {}, "No entry matches these filters."));
}

function runsTable(runs) {
  return h("table", {},
    h("tr", {}, h("th", {}, "run"), h("th", {}, "status"), h("th", {}, "watermark before → after"),
      h("th", {}, "totals"), h("th", {}, "requests (windows)"), h("th", {}, "failures")),
    runs.map((run) => h("tr", {},
      h("td", {}, link("timeline", { sync: run.syncId, from: run.first, to: run.last }, "#" + run.first + "…#" + run.last)),
      h("td", {}, statusText(run.status || "RUNNING"), run.error ? h("div", {}, run.error) : null),
      h("td", { class: "mono" }, json(run.watermarkBefore ?? null) + " → " + json(run.watermarkAfter ?? null)),
      h("td", {}, ["totalSize", "fetchedCount", "changedCount"].filter((k) => run[k] !== undefined)
        .map((k) => k + "=" + json(run[k])).join(" ")),
      h("td", {}, run.entries.filter((e) => e.kind !== "sync.state.changed").map((e) => h("div", {}, e.summary || e.kind))),
      h("td", {}, run.failures ? h("pre", {}, pretty(run.failures)) : ""))));
}

async function drawSyncs(main) {
  const data = await api("syncs", pageQuery());
  drawTravel(1, data.lastSequence, Number(params.get("asOf")) || 0);
  main.append(h("h1", {}, "Sync runs"));
  if (!data.syncs.length) main.append(h("p", {}, "No sync in this store" + (params.get("asOf") ? " at this entry." : ".")));
  for (const sync of data.syncs) {
    const state = sync.state;
    main.append(h("div", { class: "card sync-run" },
      h("div", { class: "title" }, h("strong", {}, state.name || "sync " + sync.id), " (sync " + sync.id + ", " +
        state.type + " of ", link("soups", { soup: state.soupName }, state.soupName), ") ", statusText(state.status),
        " watermark " + json(state.maxTimeStamp), state.error ? " — error: " + state.error : ""),
      h("div", { style: "padding:8px" },
        h("h2", {}, "Runs"), sync.runs.length ? runsTable(sync.runs) : h("p", { class: "muted" }, "No run yet."),
        h("h2", {}, "Pending uploads"), sync.pendingUploads.length
          ? h("pre", {}, pretty(sync.pendingUploads)) : h("p", { class: "muted" }, "None."),
        h("h2", {}, "Records with __last_error__ (" + sync.failingRecordCount + ")"), sync.recordsWithLastError.length
          ? h("table", {}, sync.recordsWithLastError.map((record) => h("tr", {},
            h("td", {}, link("record", { soup: state.soupName, id: record.Id ?? record._soupEntryId }, String(record.Id ?? record._soupEntryId))),
            h("td", {}, String(record.__last_error__)))))
          : h("p", { class: "muted" }, "None."),
        h("h2", {}, "State"), h("pre", {}, pretty(state)))));
  }
}

// A table of records as the endpoints send them: columns (the id, the indexed paths, the rest)
// and rows of display text, long values already cut server-side and clipped again by the style
// sheet. Each row links to the record's page, which shows it whole.
function recordsTable(soup, table) {
  const idColumn = table.columns.includes("Id") ? table.columns.indexOf("Id") : table.columns.indexOf("_soupEntryId");
  const body = h("tbody", {});
  const element = h("table", { class: "records" },
    h("thead", {}, h("tr", {}, table.columns.map((c) => h("th", { title: c }, c)))), body);
  const append = (rows) => {
    for (const row of rows) {
      body.append(h("tr", {}, row.map((cell, index) => h("td", { class: "mono", title: cell ?? "" },
        index === idColumn && cell !== null ? link("record", { soup, id: cell }, cell) : cell ?? ""))));
    }
  };
  append(table.rows);
  return { element, append };
}

// A table whose next page is fetched on demand: `fetchPage(cursor)` answers a table and the
// cursor of the page after it, or null at the end.
async function pagedRecords(main, soup, first, fetchPage) {
  const table = recordsTable(soup, first.table);
  let shown = first.table.rows.length;
  const count = h("p", { class: "muted", id: "records-shown" });
  const more = h("button", { type: "button", id: "more" }, "More");
  let cursor = first.cursor;
  const update = () => {
    count.textContent = shown + " of " + first.total + " records shown" +
      (first.table.omittedColumns ? " (" + first.table.omittedColumns + " more fields on each record's page)" : "");
    more.hidden = cursor === null || cursor === undefined;
  };
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const page = await fetchPage(cursor);
      table.append(page.table.rows);
      shown += page.table.rows.length;
      cursor = page.cursor;
    } catch (error) {
      main.append(h("p", { class: "error" }, String(error.message || error)));
    }
    more.disabled = false;
    update();
  });
  update();
  main.append(count, h("div", { class: "records-scroll" }, table.element), more);
}

async function drawSoups(main) {
  const asOf = params.get("asOf");
  const data = await api("soups", asOf ? { asOf } : {});
  drawTravel(1, data.lastSequence, Number(asOf) || 0);
  main.append(h("h1", {}, "Soups"));
  const names = Object.keys(data.soups).sort();
  main.append(h("table", {}, h("tr", {}, h("th", {}, "soup"), h("th", {}, "indexes"), h("th", { class: "num" }, "records"),
    h("th", { class: "num" }, "dirty"), h("th", {}, "dirty entry ids")),
    names.map((name) => h("tr", {}, h("td", {}, link("soups", { soup: name }, name)),
      h("td", {}, data.soups[name].indexes.map((i) => i.path + " (" + i.type + ")").join(", ")),
      h("td", { class: "num" }, data.soups[name].recordCount),
      h("td", { class: "num" }, data.soups[name].dirtyCount),
      h("td", {}, data.soups[name].dirty.map((id) => [link("record", { soup: name, id }, String(id)), " "]),
        data.soups[name].dirtyCount > data.soups[name].dirty.length ? "…" : "")))));
  const soup = params.get("soup") || names[0];
  if (!soup || !data.soups[soup]) return;
  const modes = ["exact", "range", "like", "match", "smart"];
  const mode = modes.find((m) => params.get(m)) || "";
  const form = h("form", { class: "filters", method: "get", action: "/soups" },
    h("input", { type: "hidden", name: "token", value: token }),
    h("input", { type: "hidden", name: "soup", value: soup }),
    h("label", {}, "query", h("select", { id: "mode" }, h("option", { value: "" }, "all records"),
      modes.map((m) => h("option", { value: m, selected: m === mode }, m === "smart" ? "Smart SQL" : m)))),
    h("label", {}, "PATH=VALUE, PATH=LO..HI, expression or SQL",
      h("input", { id: "text", size: 48, value: mode ? params.get(mode) : "" })),
    h("button", { type: "submit" }, "Run"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = form.querySelector("#mode").value;
    const query = { soup };
    if (chosen) query[chosen] = form.querySelector("#text").value;
    location.href = link("soups", query, "", false).href;
  });
  main.append(h("h2", {}, "Records of " + soup), form);
  if (asOf || !mode) {
    if (asOf && mode) main.append(h("p", { class: "muted" }, "Queries run on the current state; as of entry " + asOf +
      " every record is listed."));
    // One page of the soup in _soupEntryId order; "More" asks for the page after the last id.
    const fetchPage = async (after) => {
      const query = asOf ? { asOf } : {};
      if (after !== undefined && after !== null) query.after = after;
      const page = await api("soups/" + encodeURIComponent(soup) + "/records", query);
      return { table: page, cursor: page.next };
    };
    const first = await fetchPage(null);
    await pagedRecords(main, soup, Object.assign(first, { total: data.soups[soup].recordCount }), fetchPage);
    return;
  }
  const fetchQuery = async (page) => {
    const result = await api("query", { soup, [mode]: params.get(mode), page });
    const next = (page + 1) * result.pageSize < result.count ? page + 1 : null;
    return { table: result, cursor: next, count: result.count };
  };
  const first = await fetchQuery(0);
  main.append(h("p", { class: "muted", id: "count" }, first.count + " matching"));
  if (mode === "smart") {
    main.append(h("pre", {}, first.table.records.map(json).join("\n")));
    return;
  }
  await pagedRecords(main, soup, Object.assign(first, { total: first.count }), fetchQuery);
}

async function drawRecord(main) {
  const soup = params.get("soup");
  const id = params.get("id");
  main.append(h("h1", {}, "Record"));
  const form = h("form", { class: "filters", method: "get", action: "/record" },
    h("input", { type: "hidden", name: "token", value: token }),
    h("label", {}, "soup", h("input", { name: "soup", value: soup || "" })),
    h("label", {}, "Id or _soupEntryId", h("input", { name: "id", value: id || "" })),
    h("button", { type: "submit" }, "Show history"));
  main.append(form);
  if (!soup || !id) {
    const info = await api("info");
    drawTravel(info.horizon, info.lastSequence, 0);
    return;
  }
  const data = await api("record", pageQuery());
  drawTravel(data.horizon, data.lastSequence, Number(params.get("asOf")) || 0);
  main.append(h("h2", {}, soup + " / " + id + " as of entry " + data.asOf),
    data.record ? h("pre", { id: "current" }, pretty(data.record)) : h("p", {}, "No version at this entry."));
  main.append(h("h2", {}, "History (" + data.events.length + " entries)"));
  for (const event of data.events) {
    const cause = event.cause || {};
    const causeText = cause.type === "sync-run"
      ? ["sync run of ", link("syncs", { sync: cause.syncId }, cause.syncName || "sync " + cause.syncId),
        " starting #" + cause.first]
      : cause.type === "local-edits" ? ["local edit"] : [cause.type || ""];
    main.append(h("div", { class: "card event" },
      h("div", { class: "title" }, link("state", { asOf: event.sequence, soup }, "#" + event.sequence, false),
        " " + event.timestamp + " " + event.kind + " — " + event.action + " (", causeText, ")"),
      event.changes.length ? h("table", {}, h("tr", {}, h("th", {}, "field"), h("th", {}, "before"), h("th", {}, "after")),
        event.changes.map((c) => h("tr", {}, h("td", {}, c.field),
          h("td", { class: "mono before" }, json(c.before)), h("td", { class: "mono after" }, json(c.after)))))
        : h("p", { class: "muted", style: "padding:0 10px" }, "No field changed.")));
  }
}

async function drawState(main) {
  const query = pageQuery();
  // The soups come summed up (counts, not records): the Soups page pages their records.
  const data = await api("state", Object.assign({ soups: "summary" }, query));
  const info = await api("info");
  drawTravel(info.horizon, info.lastSequence, Number(params.get("asOf")) || 0);
  main.append(h("h1", {}, "Time travel: the store as of entry " + data.asOf),
    h("p", { class: "muted" }, "What journal-replay state --as-of " + data.asOf + " prints. Open any page as of this entry: ",
      pages.filter(([name]) => name !== "state").map(([name, title]) => [link(name, { asOf: data.asOf }, title), " "])));
  for (const [name, state] of Object.entries(data.projections).sort()) {
    main.append(h("h2", {}, name), h("pre", {}, pretty(state)));
  }
}

function barChart(title, bars, unit) {
  const width = 420, rowHeight = 22, labelWidth = 160;
  const max = Math.max(1, ...bars.map((b) => b[1]));
  const svg = svgElement("svg", { width, height: bars.length * rowHeight + 10, role: "img" });
  bars.forEach(([label, value], index) => {
    const y = index * rowHeight + 4;
    svg.append(svgElement("text", { x: 0, y: y + 13 }, label));
    svg.append(svgElement("rect", { x: labelWidth, y, height: 16, fill: "#0b62c4",
      width: Math.max(1, (width - labelWidth - 80) * value / max) }));
    svg.append(svgElement("text", { x: labelWidth + (width - labelWidth - 80) * value / max + 4, y: y + 13 },
      value + (unit || "")));
  });
  return h("div", { class: "chart" }, h("div", {}, h("strong", {}, title)), svg);
}

function lineChart(title, points) {
  const width = 520, height = 180, pad = 36;
  const maxX = Math.max(1, ...points.map((p) => p[0]));
  const maxY = Math.max(1, ...points.map((p) => p[1]));
  const svg = svgElement("svg", { width, height, role: "img" });
  const path = points.map((p, i) => (i ? "L" : "M") + (pad + (width - 2 * pad) * p[0] / maxX).toFixed(1) + " " +
    (height - pad - (height - 2 * pad) * p[1] / maxY).toFixed(1)).join(" ");
  svg.append(svgElement("path", { d: path, fill: "none", stroke: "#0b62c4", "stroke-width": 2 }));
  svg.append(svgElement("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#999" }));
  svg.append(svgElement("text", { x: pad, y: height - 14 }, "entry 1"));
  svg.append(svgElement("text", { x: width - pad - 60, y: height - 14 }, "entry " + maxX));
  svg.append(svgElement("text", { x: pad, y: 14 }, maxY + " bytes"));
  return h("div", { class: "chart" }, h("div", {}, h("strong", {}, title)), svg);
}

function svgElement(tag, attributes, text) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

async function drawStore(main) {
  const data = await api("store");
  const s = data.summary;
  drawTravel(s.horizon, s.lastSequence, 0);
  main.append(h("h1", {}, "Store"));
  const rows = [["store", s.store], ["encryption", s.encrypted ? "AES-GCM, per-store keys" : "none"],
    ["entries", s.entriesKept + " kept, " + s.entriesWritten + " ever written"],
    ["horizon (retention)", "entry " + s.horizon + (s.horizon === 1 ? " (never compacted)" : " (older entries compacted away)")],
    ["checkpoints", s.checkpoints.length ? s.checkpoints.join(", ") : "none"],
    ["time span", (s.firstTimestamp || "-") + " … " + (s.lastTimestamp || "-")],
    ["projections on open", s.projectionsOnOpen]];
  main.append(h("table", { class: "kv" }, rows.map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, String(v))))));
  main.append(h("div", { class: "charts" },
    barChart("Entries per kind", Object.entries(s.kinds).sort(), ""),
    barChart("Files", [["journal", s.journalFileBytes], ["projections", s.projectionFileBytes],
      ["checkpoints", s.checkpointBytes]], " B"),
    lineChart("Journal size over time (exported bytes)", data.growth.map((p) => [p.sequence, p.journalBytes]))));
}

// One value of a conflict's field, with the entry that produced it.
function conflictValue(value, sequence, side) {
  return h("td", { class: "mono " + side }, value === null ? h("span", { class: "muted" }, "absent") : json(value),
    h("div", { class: "muted" }, sequence === null ? "entry not kept" : ["from ", entryLink(sequence)]));
}

const conflictKinds = { fields: "field conflict", deletedLocally: "deleted locally, changed on the server",
  deletedOnServer: "changed locally, deleted on the server" };

async function drawConflicts(main) {
  const soup = params.get("soup");
  const data = await api("conflicts", soup ? { soup } : {});
  drawTravel(0, 0, 0);
  main.append(h("h1", {}, "Conflicts"),
    h("form", { class: "filters", method: "get", action: "/conflicts" },
      h("input", { type: "hidden", name: "token", value: token }),
      h("label", {}, "soup", h("input", { name: "soup", value: soup || "", size: 14 })),
      h("button", { type: "submit" }, "Filter"), link("conflicts", {}, "all soups", false)),
    h("p", { class: "muted", id: "open" }, data.openCount + " open conflict" + (data.openCount === 1 ? "" : "s") +
      (soup ? " in " + soup : "") + " as of entry " + data.lastSequence +
      (data.conflicts.length < data.openCount ? " (the first " + data.conflicts.length + " shown)" : "") +
      ". Resolve with msync resolve; the timeline marks where each was found."));
  for (const conflict of data.conflicts) {
    const recordId = conflict.id ?? String(conflict.entryId);
    const title = [link("record", { soup: conflict.soup, id: recordId }, conflict.soup + " / " + recordId, false),
      " — ", h("strong", { class: "conflict-kind" }, conflictKinds[conflict.kind] || conflict.kind),
      ", found by ", entryLink(conflict.entry), " (sync " + conflict.syncId + ")"];
    if (conflict.deletedBy !== undefined) {
      title.push(", deleted by ", conflict.deletedBy === null ? "an entry not kept" : entryLink(conflict.deletedBy));
    }
    main.append(h("div", { class: "card conflict " + conflict.kind },
      h("div", { class: "title" }, title),
      h("table", { class: "conflict-fields" },
        h("tr", {}, h("th", {}, "field"), h("th", {}, "base"), h("th", {}, "local"), h("th", {}, "server")),
        conflict.fields.map((field) => h("tr", {}, h("td", {}, field.path),
          conflictValue(field.base, field.baseEntry, "base"), conflictValue(field.local, field.localEntry, "local"),
          conflictValue(field.server, field.serverEntry, "server"))))));
  }
  if (!data.conflicts.length) main.append(h("p", {}, "No open conflict."));
}

const drawers = { timeline: drawTimeline, syncs: drawSyncs, soups: drawSoups, record: drawRecord,
  conflicts: drawConflicts, state: drawState, store: drawStore };

let shownLast = null;

async function draw() {
  const main = document.getElementById("main");
  const fresh = h("main", { id: "main" });
  try {
    await (drawers[page] || drawTimeline)(fresh);
  } catch (error) {
    fresh.append(h("p", { class: "error" }, String(error.message || error)));
  }
  main.replaceWith(fresh);
  // When the page was first drawn, for whoever measures it (the inspector's scale test).
  if (!performance.getEntriesByName("drawn").length) performance.mark("drawn");
  document.title = "SyncJournal · " + (pages.find(([name]) => name === page) || ["", "Timeline"])[1];
}

// Follows the store while no asOf pins the page: redraws when the journal has grown.
async function follow() {
  if (params.get("asOf")) return;
  try {
    const info = await api("info");
    if (shownLast !== null && info.lastSequence !== shownLast) await draw();
    shownLast = info.lastSequence;
    document.getElementById("footer").textContent = "Store " + info.store + " · " + info.lastSequence +
      " entries · following new entries";
  } catch (error) {
    document.getElementById("footer").textContent = String(error.message || error);
  }
  setTimeout(follow, followIntervalMs);
}

drawNav();
draw().then(follow);
