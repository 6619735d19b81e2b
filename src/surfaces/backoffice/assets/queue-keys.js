// Keyboard shortcuts of the receipts queue (docs/decisions.md section 32): J / K move between receipts, A accepts
// the current one, R puts the cursor in its reject reason (Enter rejects). The buttons work without.
(() => {
  const items = [...document.querySelectorAll('[data-testid=receipt]')];
  if (items.length === 0) return;
  let current = 0;
  const focus = (i) => {
    current = Math.max(0, Math.min(items.length - 1, i));
    for (const [n, el] of items.entries()) el.classList.toggle('current', n === current);
    items[current].scrollIntoView({ block: 'nearest' });
  };
  document.addEventListener('keydown', (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key === 'j') focus(current + 1);
    else if (key === 'k') focus(current - 1);
    else if (key === 'a') items[current].querySelector('[data-testid=accept]')?.click();
    else if (key === 'r') items[current].querySelector('[data-testid=reject-reason]')?.focus();
    else return;
    e.preventDefault();
  });
  focus(0);
})();
