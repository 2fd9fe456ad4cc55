// Tooltip: what a mark is, from its data attributes (frame, PSN, time; a command's name,
// key and latency).
(function () {
  var tip = document.getElementById("tooltip");
  var names = { "data-mark": "", "data-frame": "frame", "data-psn": "PSN", "data-upsn": "PSN unwrapped",
    "data-ts-ns": "time (ns)", "data-end-ns": "until (ns)", "data-count": "merged",
    "data-rtt-ns": "RTT mean (ns)", "data-min-ns": "min (ns)", "data-max-ns": "max (ns)",
    "data-src": "source", "data-priority": "priority", "data-direction": "",
    "data-name": "command", "data-cid": "CID", "data-key": "key",
    "data-command-frame": "command frame", "data-latency-ns": "latency (ns)",
    "data-status": "status" };
  // What a latency mark's key is, by its protocol: the mark's prefix.
  var keys = { "rpcrdma": "XID", "iser": "ITT", "smbd": "message ID" };
  function text(el) {
    var lines = [];
    var mark = el.getAttribute("data-mark") || "";
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i];
      if (!(a.name in names)) continue;
      if (a.name === "data-count" && a.value === "1") continue;
      if (a.name === "data-key") {
        // Keys are 32 or 64 bits, shown in hex as the text report shows them.
        var key = keys[mark.split("_")[0]] || "key";
        lines.push(key + ": 0x" + BigInt(a.value).toString(16));
        continue;
      }
      lines.push(names[a.name] ? names[a.name] + ": " + a.value : a.value);
    }
    return lines.join("\n");
  }
  document.addEventListener("mouseover", function (e) {
    var el = e.target.closest ? e.target.closest("[data-mark]") : null;
    if (!el) { tip.hidden = true; return; }
    tip.textContent = text(el);
    tip.hidden = false;
  });
  document.addEventListener("mousemove", function (e) {
    tip.style.left = (e.clientX + 12) + "px";
    tip.style.top = (e.clientY + 12) + "px";
  });
  // Zoom: a click on a chart doubles its width (the figure scrolls); another click undoes it.
  document.addEventListener("click", function (e) {
    var svg = e.target.closest ? e.target.closest("svg.chart") : null;
    if (svg) svg.parentNode.classList.toggle("zoomed");
  });
  // Sorting: a click on a header of a sortable table sorts its rows by that column, by the
  // cells' data-sort numbers for numeric columns (empty last), else by their text; a
  // second click reverses the order.
  document.addEventListener("click", function (e) {
    var th = e.target.closest ? e.target.closest("table.sortable th") : null;
    if (!th) return;
    var table = th.closest("table");
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-type") === "num";
    var descending = th.getAttribute("data-sorted") !== "desc";
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function key(row) {
      var cell = row.cells[column];
      if (!numeric) return cell.textContent;
      var v = cell.getAttribute("data-sort");
      return v === null || v === "" ? null : parseFloat(v);
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      var order = x < y ? -1 : 1;
      return descending ? -order : order;
    });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("data-sorted"); });
    th.setAttribute("data-sorted", descending ? "desc" : "asc");
    rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
  });
  document.body.setAttribute("data-script", "ready");
})();
