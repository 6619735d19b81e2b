// Payment form behaviour: copy buttons, countdown, steps, live state, receipt upload. No inline
// script (CSP). The page works without it; this only makes it live.
// A block, not a function around the script: its `const`s stay inside it, so nothing reaches `window`.
{
  const body = document.body;
  const id = body.dataset.id;
  const texts = JSON.parse(document.getElementById('texts').textContent);
  const MAX = 5 * 1024 * 1024;
  const TYPES = ['application/pdf', 'image/jpeg', 'image/png'];

  /**
   * The countdown's end: the order's expiry time, so the countdown stays right after the tab slept;
   * the server's remaining seconds correct for a phone whose clock is wrong.
   */
  const deadlineOf = () => {
    const remaining = Number(body.dataset.remaining || 0);
    const expiresAt = Date.parse(body.dataset.expiresAt || '');
    const skew = Number.isFinite(expiresAt) ? expiresAt - Date.now() - remaining * 1000 : 0;
    return Number.isFinite(expiresAt) && Math.abs(skew) < 5000 ? expiresAt : Date.now() + remaining * 1000;
  };
  const deadline = deadlineOf();

  // Polling with backoff: every 2 s at first, up to 15 s while nothing changes; back to 2 s when
  // the payer returns to the tab (they usually come back from the bank app).
  let delay = 2000;
  let timer = 0;

  /** The receipt's state in words; the drop zone hidden once a receipt is under review or accepted. */
  const showReceipt = (status) => {
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
  };

  /** The time left, h:mm:ss or mm:ss. */
  const tick = () => {
    const el = document.getElementById('countdown');
    if (!el) return;
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const h = Math.floor(left / 3600);
    const mm = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
    const ss = String(left % 60).padStart(2, '0');
    el.textContent = h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
  };

  const schedule = (ms) => {
    clearTimeout(timer);
    // `poll` is defined below; it is only called after the whole block ran.
    timer = setTimeout(poll, ms);
  };

  /**
   * Applies one status answer to the page: 'stop' when polling ends (a final state, or a reload to
   * show new amounts), 'changed' when the receipt's state moved, else 'same'.
   */
  const applyStatus = (s) => {
    if (s.state !== body.dataset.state) {
      // The final screens (result, return button, the late-payment claim) are in the page already.
      body.dataset.state = s.state;
      if (s.state !== 'pending') return 'stop';
    }
    let answer = 'same';
    if (s.receiptStatus !== (body.dataset.receipt || null)) {
      body.dataset.receipt = s.receiptStatus || '';
      showReceipt(s.receiptStatus);
      answer = 'changed';
    }
    const received = document.getElementById('received');
    if (
      (s.cryptoAmount && document.getElementById('crypto-pending')) ||
      // A partial payment: the amounts still to send are the server's to compute.
      (received && s.receivedAmount && received.textContent !== s.receivedAmount)
    ) {
      location.reload();
      return 'stop';
    }
    return answer;
  };

  /** One status poll, then the next one after a delay that grows while nothing changes. */
  const poll = async () => {
    let changed = false;
    try {
      const res = await fetch(`/form/${encodeURIComponent(id)}/status`, {
        headers: { accept: 'application/json' },
        cache: 'no-store',
      });
      if (res.ok) {
        const outcome = applyStatus(await res.json());
        if (outcome === 'stop') return;
        changed = outcome === 'changed';
      }
    } catch {
      // Network hiccup: try again on the next round.
    }
    delay = changed ? 2000 : Math.min(delay * 1.5, 15000);
    schedule(delay);
  };

  /** Back in the tab: the countdown and the state at once. */
  const followVisibility = () => {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && body.dataset.state === 'pending') {
        tick();
        delay = 2000;
        schedule(0);
      }
    });
  };

  const setStep = (step, push) => {
    body.dataset.step = step;
    if (push) history.pushState({ step }, '', `?step=${step}`);
    window.scrollTo(0, 0);
    delay = 2000;
    schedule(step === 'waiting' ? 0 : delay);
  };

  /** The "I have paid" and "back" links switch steps without a reload; the browser's back button too. */
  const wireSteps = () => {
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
  };

  /** Copy buttons: the value to the clipboard, the label saying whether it worked for a moment. */
  const wireCopyButtons = () => {
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
  };

  /** The payer's receipt: type and size checked here first, then posted; the answer shown. */
  const upload = async (file) => {
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
  };

  /** The file input and the drop zone upload what they are given. */
  const wireUpload = () => {
    const input = document.getElementById('file');
    const drop = document.getElementById('drop');
    if (!input || !drop) return;
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
  };

  followVisibility();
  wireSteps();
  wireCopyButtons();
  wireUpload();
  showReceipt(body.dataset.receipt);
  tick();
  setInterval(tick, 1000);
  if (body.dataset.state === 'pending') schedule(delay);
}
