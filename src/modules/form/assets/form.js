// Payment form behaviour: copy buttons, countdown, live state, receipt upload. No inline script (CSP).
(() => {
  const body = document.body;
  const id = body.dataset.id;
  const texts = JSON.parse(document.getElementById('texts').textContent);
  const MAX = 5 * 1024 * 1024;
  const TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
  const remaining = Number(body.dataset.remaining || 0);
  const deadline = Date.now() + remaining * 1000;

  function setState(state) {
    body.dataset.state = state;
  }

  function showReceipt(status) {
    const el = document.getElementById('receipt-status');
    if (!el) return;
    el.textContent =
      status === 'under_review'
        ? texts.underReview
        : status === 'accepted'
          ? texts.accepted
          : status === 'rejected'
            ? texts.rejected
            : '';
    const drop = document.getElementById('drop');
    if (drop) drop.hidden = status === 'under_review' || status === 'accepted';
  }

  function tick() {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const el = document.getElementById('countdown');
    const h = Math.floor(left / 3600);
    const mm = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
    const ss = String(left % 60).padStart(2, '0');
    if (el) el.textContent = h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
  }

  async function poll() {
    try {
      const res = await fetch(`/form/${id}/status`, {
        headers: { accept: 'application/json' },
        cache: 'no-store',
      });
      if (res.ok) {
        const s = await res.json();
        if (s.state !== body.dataset.state) setState(s.state);
        showReceipt(s.receiptStatus);
        if (s.cryptoAmount && document.getElementById('crypto-pending')) location.reload();
        if (s.state !== 'pending') return;
      }
    } catch {
      // Network hiccup: try again on the next round.
    }
    setTimeout(poll, 3000);
  }

  for (const button of document.querySelectorAll('button.copy')) {
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy || '');
        const label = button.textContent;
        button.textContent = texts.copied;
        button.classList.add('done');
        setTimeout(() => {
          button.textContent = label;
          button.classList.remove('done');
        }, 1500);
      } catch {
        // Clipboard refused (old browser): the text stays selectable.
      }
    });
  }

  async function upload(file) {
    const error = document.getElementById('upload-error');
    error.textContent = '';
    if (!TYPES.includes(file.type)) {
      error.textContent = texts.badType;
      return;
    }
    if (file.size > MAX) {
      error.textContent = texts.tooLarge;
      return;
    }
    const data = new FormData();
    data.append('receipt', file, file.name);
    document.getElementById('receipt-status').textContent = texts.uploading;
    try {
      const res = await fetch(`/form/${id}/receipt`, { method: 'POST', body: data });
      const answer = await res.json();
      if (res.ok) return showReceipt(answer.receiptStatus);
      showReceipt('');
      error.textContent =
        answer.message === 'RECEIPT_TOO_LARGE'
          ? texts.tooLarge
          : /FORMAT|MISMATCH/.test(answer.message)
            ? texts.badType
            : texts.uploadFailed;
    } catch {
      showReceipt('');
      error.textContent = texts.uploadFailed;
    }
  }

  const input = document.getElementById('file');
  const drop = document.getElementById('drop');
  if (input && drop) {
    input.addEventListener('change', () => input.files[0] && upload(input.files[0]));
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      if (e.dataTransfer.files[0]) upload(e.dataTransfer.files[0]);
    });
  }

  showReceipt(body.dataset.receipt);
  tick();
  setInterval(tick, 1000);
  if (body.dataset.state === 'pending') setTimeout(poll, 3000);
})();
