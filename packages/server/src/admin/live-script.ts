/**
 * The admin pages' live regions (issue 21: "the admin backend's data store and file store pages
 * update live"), served as /static/roost-live.js (admin/index.ts): one EventSource for the page's
 * topics, signed in by the page's own cookie; after a change (or `reload`) the page is fetched
 * again and each region's contents replaced, a burst of changes making one fetch. Forms outside
 * the regions keep what is being typed. Plain script: the pages' CSP allows scripts from Roost.
 */
export const LIVE_SCRIPT = `(() => {
  const regions = [...document.querySelectorAll('[data-live-topic]')];
  if (regions.length === 0 || typeof EventSource === 'undefined') return;
  const topics = [...new Set(regions.map((r) => r.dataset.liveTopic))];
  const source = new EventSource('/api/realtime?' + topics.map((t) => 'topic=' + encodeURIComponent(t)).join('&'));
  let timer = null;
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const page = new DOMParser().parseFromString(await res.text(), 'text/html');
      for (const region of regions) {
        const fresh = page.querySelector('[data-live-topic="' + CSS.escape(region.dataset.liveTopic) + '"]');
        if (!fresh) continue;
        region.innerHTML = fresh.innerHTML;
        region.dataset.liveUpdated = String(Date.now());
      }
    }, 200);
  };
  for (const topic of topics) source.addEventListener(topic, refresh);
  source.addEventListener('reload', refresh);
  source.addEventListener('connect', () => document.documentElement.setAttribute('data-live', 'open'));
  window.addEventListener('pagehide', () => source.close());
})();
`;
