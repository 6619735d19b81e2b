// Copy buttons of the portal: each button[data-copy] copies the value of the field it names and
// says so. Without this script the buttons stay hidden and the field (read-only, selected on focus
// by the browser's own select-all) is copied by hand.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    await navigator.clipboard.writeText(field.value ?? field.textContent ?? '');
    button.textContent = button.dataset.copied;
  });
  field.addEventListener('focus', () => field.select?.());
}
