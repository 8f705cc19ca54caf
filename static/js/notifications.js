// Reply notifications in the header (signed-in learners): listed when opened, then marked read.
(function () {
  "use strict";
  const K = window.KDojo;
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.getElementById("notifications");
    if (!box) return;
    const list = document.getElementById("notification-list");
    const count = document.getElementById("notification-count");
    box.addEventListener("toggle", async () => {
      if (!box.open) return;
      try {
        const data = await K.api("GET", "/api/notifications");
        list.replaceChildren();
        for (const n of data.notifications) {
          const link = document.createElement("a");
          link.href = `/lessons/${encodeURIComponent(n.lesson_id)}#comment-${n.comment_id}`;
          link.textContent = K.fmt(K.S.reply_notice, { actor: n.actor });
          const item = document.createElement("li");
          item.className = n.read ? "read" : "unread";
          item.append(link);
          list.append(item);
        }
        if (!data.notifications.length) {
          const empty = document.createElement("li");
          empty.textContent = K.S.no_notifications;
          list.append(empty);
        }
        if (data.unread) {
          const after = await K.api("POST", "/api/notifications/read", {});
          count.textContent = String(after.unread);
          count.dataset.unread = String(after.unread);
        }
      } catch (e) { list.textContent = e.message || K.S.network_error; }
    });
  });
})();
