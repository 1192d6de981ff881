// Weft console: progressive enhancement only; every page works without it.
// - [data-live] regions refresh every few seconds from the same URL (paused while hidden or while focus is inside);
// - selects marked data-autosubmit submit their form on change;
// - forms marked data-confirm ask first;
// - <pre data-follow=URL> appends lines from a server-sent event stream.
(function () {
  "use strict";
  var REFRESH_MS = 5000;
  var status = document.getElementById("status");

  function setOffline(offline) {
    if (status) status.hidden = !offline;
  }

  function refresh() {
    var regions = document.querySelectorAll("[data-live]");
    if (!regions.length || document.hidden) return;
    fetch(location.href, { credentials: "same-origin", headers: { "X-Weft-Live": "1" } })
      .then(function (response) {
        if (response.redirected || response.status === 401) { location.reload(); return null; }
        setOffline(false);
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        regions.forEach(function (region) {
          if (region.contains(document.activeElement) && document.activeElement !== document.body) return;
          var next = fresh.querySelector('[data-live="' + region.getAttribute("data-live") + '"]');
          if (!next) return;
          if (region.hasAttribute("data-reload-when-done") && !next.hasAttribute("data-reload-when-done")) {
            location.reload();
            return;
          }
          if (next.innerHTML !== region.innerHTML) region.innerHTML = next.innerHTML;
        });
      })
      .catch(function () { setOffline(true); });
  }
  setInterval(refresh, REFRESH_MS);

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("select[data-autosubmit]") && target.form) target.form.submit();
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  function follow(pre) {
    var url = pre.getAttribute("data-follow");
    if (!url || !window.EventSource) return;
    var source = new EventSource(url);
    var after = Number(pre.getAttribute("data-after") || -1);
    source.addEventListener("line", function (event) {
      var line;
      try { line = JSON.parse(event.data); } catch (e) { return; }
      if (typeof line.seq === "number" && line.seq <= after) return;
      var span = document.createElement("span");
      span.className = "line";
      if (line.pod) {
        var src = document.createElement("span");
        src.className = "src";
        src.textContent = line.pod + "/" + line.container;
        span.appendChild(src);
        span.appendChild(document.createTextNode(" "));
      }
      span.appendChild(document.createTextNode(line.text + "\n"));
      var atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.appendChild(span);
      if (atBottom) pre.scrollTop = pre.scrollHeight;
      setOffline(false);
    });
    // A followed app's pods joining and leaving (a scale-up, a rollout), said in the log as stern says them.
    function member(sign, text) {
      var span = document.createElement("span");
      span.className = "line member";
      span.textContent = sign + " " + text + "\n";
      var atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.appendChild(span);
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
    source.addEventListener("joined", function (event) {
      var pod;
      try { pod = JSON.parse(event.data); } catch (e) { return; }
      member("+", "pod/" + pod.pod + " joined (" + (pod.containers || []).join(", ") + ")");
    });
    source.addEventListener("left", function (event) {
      var pod;
      try { pod = JSON.parse(event.data); } catch (e) { return; }
      member("-", "pod/" + pod.pod + " left");
    });
    source.addEventListener("error", function () {
      // The stream ends when the operation does; the page's live region then reloads it.
      if (source.readyState === EventSource.CLOSED) return;
    });
  }
  document.querySelectorAll("pre[data-follow]").forEach(follow);
})();
