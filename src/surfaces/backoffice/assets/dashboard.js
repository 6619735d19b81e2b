// The dashboard follows its figures over Server-Sent Events (docs/decisions.md section 32); without this script
// the page shows the figures of its load. No inline script (CSP).
(() => {
  // The page's language gives the units (`s|min|h`, `с|мин|ч`).
  const [us, umin, uh] = (document.querySelector('[data-age-units]')?.dataset.ageUnits || 's|min|h').split(
    '|',
  );
  const age = (s) => {
    if (s === null || s === undefined) return '—';
    if (s < 60) return `${s} ${us}`;
    const m = Math.floor(s / 60);
    return m < 60 ? `${m} ${umin}` : `${Math.floor(m / 60)} ${uh} ${m % 60} ${umin}`;
  };
  const set = (key, text) => {
    for (const el of document.querySelectorAll(`[data-figure="${key}"]`)) el.textContent = text;
  };
  const source = new EventSource('/backoffice/dashboard/stream');
  source.addEventListener('figures', (event) => {
    const f = JSON.parse(event.data);
    for (const q of f.queues) {
      set(`${q.key}.count`, q.more ? `${q.count}+` : String(q.count));
      set(`${q.key}.oldest`, age(q.oldest_seconds));
    }
    set('requisites_without_device', String(f.requisites_without_device.length));
    set('webhooks_failing', String(f.webhooks_failing));
    set('stale_rates', String(f.stale_rates.length));
    set('chains_alerting', String(f.chains_alerting.length));
    if (f.chains_alerting.length) set('chains_alerting.names', f.chains_alerting.join(', '));
    set('generated_at', f.generated_at.slice(11, 19));
    document.body.dataset.live = 'yes';
  });
})();
