// The reports chart (docs/decisions.md section 30): reads /portal/reports.json and draws the daily PAYIN
// counts with uPlot. The page shows every figure without it; this only adds the picture.
(() => {
  const box = document.getElementById('chart');
  if (!box || typeof uPlot === 'undefined') return;
  fetch(box.dataset.src, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then((res) => (res.ok ? res.json() : Promise.reject(new Error(String(res.status)))))
    .then(({ data }) => {
      const days = data.daily.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
      const width = Math.max(280, Math.min(box.clientWidth || 600, 1000));
      const chart = new uPlot(
        {
          width,
          height: 240,
          series: [
            {},
            { label: box.dataset.created, stroke: '#175cd3', width: 2 },
            { label: box.dataset.succeeded, stroke: '#067647', width: 2 },
          ],
          axes: [{}, { size: 40 }],
        },
        [days, data.daily.created, data.daily.succeeded],
        box,
      );
      box.dataset.ready = 'true';
      window.addEventListener('resize', () =>
        chart.setSize({ width: Math.max(280, Math.min(box.clientWidth, 1000)), height: 240 }),
      );
    })
    .catch(() => {
      box.dataset.ready = 'failed';
    });
})();
