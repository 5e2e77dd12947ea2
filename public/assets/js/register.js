// "Register a bot": POST /v1/bots, then the token (and a push bot's webhook secret) shown once.
// The secrets live only in this page's DOM: never in storage or the URL, and they are wiped when the
// page is left, so neither reloading nor going back (even from the back/forward cache) shows them again.
import { ApiError, api, botHref, el, errorMessage, replaceChildren } from './common.js';

const $ = (id) => document.getElementById(id);
const form = $('register-form');
const FIELDS = ['name', 'description', 'url'];

function clearErrors() {
  $('form-errors').hidden = true;
  replaceChildren($('form-errors'));
  for (const field of FIELDS) {
    $(field).removeAttribute('aria-invalid');
    $(`${field}-error`).textContent = '';
  }
}

/** The form field an error path such as `body.name` points at, if any. */
function fieldOf(path) {
  const name = String(path ?? '')
    .replace(/^body\.?/, '')
    .split('.')[0];
  return FIELDS.includes(name) ? name : null;
}

function showErrors(error) {
  const box = $('form-errors');
  const issues = error instanceof ApiError ? error.errors : [];
  const items = issues.map((issue) => {
    const field = fieldOf(issue.path);
    if (field) {
      $(field).setAttribute('aria-invalid', 'true');
      const slot = $(`${field}-error`);
      slot.textContent = slot.textContent ? `${slot.textContent}; ${issue.message}` : issue.message;
      return el('li', {}, el('a', { href: `#${field}` }, `${labelOf(field)}: ${issue.message}`));
    }
    return el('li', {}, issue.path ? `${issue.path}: ${issue.message}` : issue.message);
  });
  // A name taken is a conflict without an errors list; it still belongs to the name field.
  if (error instanceof ApiError && error.code === 'bots/name-taken') {
    $('name').setAttribute('aria-invalid', 'true');
    $('name-error').textContent = error.message;
  }
  // With a list of issues the detail only repeats them; without one it is the whole story.
  const lead =
    items.length > 0
      ? `Please correct ${items.length === 1 ? 'this problem' : `these ${items.length} problems`}:`
      : errorMessage(error);
  replaceChildren(
    box,
    el('p', {}, el('strong', {}, 'The bot was not registered. '), lead),
    items.length > 0 ? el('ul', {}, items) : null,
  );
  box.hidden = false;
  box.focus();
}

const labelOf = (field) => ({ name: 'Name', description: 'Description', url: 'URL' })[field];

function showCreated(bot) {
  const link = el('a', { href: botHref(bot.id) }, bot.name);
  replaceChildren(
    $('created-intro'),
    link,
    bot.kind === 'push'
      ? ' is registered as a push bot: the arena will call its URL on its turns.'
      : ' is registered as a pull bot: it plays through the API.',
  );
  $('token').value = bot.token;
  $('secret-field').hidden = !bot.webhookSecret;
  $('webhook-secret').value = bot.webhookSecret ?? '';
  $('copy-status').textContent = '';
  form.hidden = true;
  $('created').hidden = false;
  $('created').focus();
}

/** Wipes the shown secrets. */
function forgetSecrets() {
  $('token').value = '';
  $('webhook-secret').value = '';
  $('created').hidden = true;
  form.hidden = false;
}

async function onSubmit(event) {
  event.preventDefault();
  clearErrors();
  const body = { name: $('name').value.trim() };
  const description = $('description').value.trim();
  const url = $('url').value.trim();
  if (description) body.description = description;
  if (url) body.url = url;
  const submit = $('submit');
  submit.disabled = true;
  form.setAttribute('aria-busy', 'true');
  try {
    const bot = await api('/v1/bots', { method: 'POST', body });
    form.reset();
    showCreated(bot);
  } catch (error) {
    showErrors(error);
  } finally {
    submit.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

async function copy(button) {
  const input = $(button.dataset.copy);
  const status = $('copy-status');
  const what = button.dataset.copy === 'token' ? 'Token' : 'Webhook secret';
  try {
    // Clipboard API: only in secure contexts (https, localhost) and with permission.
    await navigator.clipboard.writeText(input.value);
    status.textContent = `${what} copied to the clipboard.`;
  } catch {
    // Fallback: select it so the user can copy it with Ctrl+C / ⌘C (or the old execCommand does it).
    input.focus();
    input.select();
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    status.textContent = copied
      ? `${what} copied to the clipboard.`
      : `${what} selected: press Ctrl+C (⌘C on a Mac) to copy it.`;
  }
}

form.addEventListener('submit', onSubmit);
for (const button of document.querySelectorAll('button.copy')) {
  button.addEventListener('click', () => copy(button));
}
for (const id of ['token', 'webhook-secret']) {
  // A click in the field selects the whole secret, ready to copy.
  $(id).addEventListener('focus', (event) => event.target.select());
}
$('another').addEventListener('click', () => {
  forgetSecrets();
  clearErrors();
  $('name').focus();
});
window.addEventListener('pagehide', forgetSecrets);
window.addEventListener('pageshow', (event) => {
  if (event.persisted) forgetSecrets();
});
