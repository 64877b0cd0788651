// The dashboard's only script: copy buttons for one-time secrets, and reloading a call whose transcript is
// pending. Everything else works without it (without it, the pending message says when to reload).

const pending = document.querySelector('[data-reload-after]');
if (pending) {
  const seconds = Number(pending.getAttribute('data-reload-after')) || 10;
  pending.textContent = `The transcript is not ready yet; this page refreshes by itself in about ${seconds} seconds.`;
  setTimeout(() => window.location.reload(), seconds * 1000);
}

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  const status = button.parentElement ? button.parentElement.querySelector('.copy-status') : null;
  if (!source) return;
  const done = (text) => {
    if (status) status.textContent = text;
  };
  const select = () => {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    if (selection) {
      selection.removeAllRanges();
      selection.addRange(range);
    }
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(source.textContent || '').then(
      () => done('Copied.'),
      () => {
        select();
        done('Selected: press Ctrl+C (⌘C) to copy.');
      },
    );
  } else {
    select();
    done('Selected: press Ctrl+C (⌘C) to copy.');
  }
});
