// Payment form behaviour: copy buttons, countdown, steps, live state, receipt upload. No inline
// script (CSP). The page works without it; this only makes it live.
(() => {
  const body = document.body;
  const id = body.dataset.id;
  const texts = JSON.parse(document.getElementById('texts').textContent);
  const MAX = 5 * 1024 * 1024;
  const TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
  // The deadline is the order's expiry time, so the countdown stays right after the tab slept; the
  // server's remaining seconds correct for a phone whose clock is wrong.
  const remaining = Number(body.dataset.remaining || 0);
  const expiresAt = Date.parse(body.dataset.expiresAt || '');
  const skew = Number.isFinite(expiresAt) ? expiresAt - Date.now() - remaining * 1000 : 0;
  const deadline =
    Number.isFinite(expiresAt) && Math.abs(skew) < 5000 ? expiresAt : Date.now() + remaining * 1000;

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
    const el = document.getElementById('countdown');
    if (!el) return;
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const h = Math.floor(left / 3600);
    const mm = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
    const ss = String(left % 60).padStart(2, '0');
    el.textContent = h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
  }

  // Polling with backoff: every 2 s at first, up to 15 s while nothing changes; back to 2 s when
  // the payer returns to the tab (they usually come back from the bank app).
  let delay = 2000;
  let timer = 0;
  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }
  async function poll() {
    let changed = false;
    try {
      const res = await fetch(`/form/${encodeURIComponent(id)}/status`, {
        headers: { accept: 'application/json' },
        cache: 'no-store',
      });
      if (res.ok) {
        const s = await res.json();
        if (s.state !== body.dataset.state) {
          // The final screens (result, return button, the late-payment claim) are in the page already.
          body.dataset.state = s.state;
          if (s.state !== 'pending') return;
        }
        if (s.receiptStatus !== (body.dataset.receipt || null)) {
          body.dataset.receipt = s.receiptStatus || '';
          showReceipt(s.receiptStatus);
          changed = true;
        }
        if (s.cryptoAmount && document.getElementById('crypto-pending')) {
          location.reload();
          return;
        }
        const received = document.getElementById('received');
        if (received && s.receivedAmount && received.textContent !== s.receivedAmount) {
          // A partial payment: the amounts still to send are the server's to compute.
          location.reload();
          return;
        }
      }
    } catch {
      // Network hiccup: try again on the next round.
    }
    delay = changed ? 2000 : Math.min(delay * 1.5, 15000);
    schedule(delay);
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && body.dataset.state === 'pending') {
      tick();
      delay = 2000;
      schedule(0);
    }
  });

  function setStep(step, push) {
    body.dataset.step = step;
    if (push) history.pushState({ step }, '', `?step=${step}`);
    window.scrollTo(0, 0);
    delay = 2000;
    schedule(step === 'waiting' ? 0 : delay);
  }
  for (const [linkId, step] of [
    ['i-paid', 'waiting'],
    ['back-to-pay', 'pay'],
  ]) {
    const link = document.getElementById(linkId);
    if (!link) continue;
    link.addEventListener('click', (e) => {
      e.preventDefault();
      setStep(step, true);
    });
  }
  window.addEventListener('popstate', () => {
    setStep(new URLSearchParams(location.search).get('step') === 'waiting' ? 'waiting' : 'pay', false);
  });

  for (const button of document.querySelectorAll('button.copy')) {
    const label = button.textContent;
    button.addEventListener('click', async () => {
      let ok = true;
      try {
        await navigator.clipboard.writeText(button.dataset.copy || '');
      } catch {
        ok = false;
      }
      button.textContent = ok ? texts.copied : texts.copyFailed;
      button.classList.toggle('done', ok);
      setTimeout(
        () => {
          button.textContent = label;
          button.classList.remove('done');
        },
        ok ? 1500 : 4000,
      );
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
      const res = await fetch(`/form/${encodeURIComponent(id)}/receipt`, { method: 'POST', body: data });
      const answer = await res.json();
      if (res.ok) {
        body.dataset.receipt = answer.receiptStatus;
        return showReceipt(answer.receiptStatus);
      }
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
  if (body.dataset.state === 'pending') schedule(delay);
})();
