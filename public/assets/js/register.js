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

const NAME_MIN = 3;
const NAME_MAX = 32;
const DESCRIPTION_MAX = 500;

/**
 * One message per field, in plain words, from what was sent and the problem's code. The API's own
 * messages are schema talk ("Too small: expected string to have >=3 characters") and may come
 * several to a field, so they are used only for a field this page knows nothing about.
 */
const PLAIN = {
  name(value, code) {
    if (code === 'bots/name-taken') return `The name “${value}” is taken: choose another one.`;
    if (code === 'bots/name-reserved') return 'Names starting with “house-” belong to the arena’s own bots.';
    if (value === '') return 'Enter a name for your bot.';
    if (value.length < NAME_MIN) return `The name is too short: use at least ${NAME_MIN} characters.`;
    if (value.length > NAME_MAX) return `The name is too long: use at most ${NAME_MAX} characters.`;
    return 'Use only letters, digits, _ and - in the name (no spaces or other signs).';
  },
  description(value) {
    if (value.length > DESCRIPTION_MAX) {
      return `The description is too long: at most ${DESCRIPTION_MAX} characters (it has ${value.length}).`;
    }
    return 'The description was not accepted.';
  },
  url(_value, code) {
    if (code === 'bots/url-not-allowed') {
      return 'That address is on a private network, which the arena does not call: use a public address.';
    }
    return 'Enter a full address starting with http:// or https://, or leave it empty for a pull bot.';
  },
};

/** Field → its one message, for the fields a refused registration names. */
function fieldMessages(error, sent) {
  const messages = new Map();
  if (!(error instanceof ApiError)) return messages;
  // A name taken is a conflict without an errors list; it still belongs to the name field.
  const issues =
    error.code === 'bots/name-taken' ? [{ path: 'body.name', message: error.message }] : error.errors;
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    if (field && !messages.has(field)) {
      messages.set(field, PLAIN[field]?.(sent[field] ?? '', error.code) ?? issue.message);
    }
  }
  return messages;
}

function showErrors(error, sent) {
  const box = $('form-errors');
  const messages = fieldMessages(error, sent);
  const items = [...messages].map(([field, message]) => {
    $(field).setAttribute('aria-invalid', 'true');
    $(`${field}-error`).textContent = message;
    return el('li', {}, el('a', { href: `#${field}` }, `${labelOf(field)}: ${message}`));
  });
  // Problems that name no field (there should be none) are listed as the API words them.
  const others = error instanceof ApiError ? error.errors.filter((issue) => !fieldOf(issue.path)) : [];
  for (const issue of others) items.push(el('li', {}, issue.message));
  // With a list of problems the detail only repeats them; without one it is the whole story.
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

/** The curl commands of a new bot's next steps. They hold its token, so they are wiped with it. */
function nextSteps(bot) {
  const origin = location.origin;
  const auth = `-H "Authorization: Bearer ${bot.token}"`;
  return {
    check: `curl -X POST ${auth} ${origin}/v1/bots/me/check`,
    events: `curl -N ${auth} ${origin}/v1/bots/me/events`,
    poll: [
      `curl ${auth} "${origin}/v1/bots/me/matches?status=running"`,
      `curl ${auth} "${origin}/v1/matches/MATCH_ID/state?waitMs=25000"`,
      `curl -X POST ${auth} -H "Content-Type: application/json" \\\n  -d '{"action":"e3","ply":1}' ${origin}/v1/matches/MATCH_ID/actions`,
    ].join('\n\n'),
  };
}

const COMMANDS = { check: 'cmd-check', events: 'cmd-events', poll: 'cmd-poll' };

function showCreated(bot) {
  const link = el('a', { href: botHref(bot.id) }, bot.name);
  replaceChildren(
    $('created-intro'),
    link,
    bot.kind === 'push'
      ? ' is registered as a push bot: the arena will call its URL on its turns.'
      : ' is registered as a pull bot: it plays through the API.',
  );
  $('bot-id').textContent = bot.id;
  $('token').value = bot.token;
  const commands = nextSteps(bot);
  for (const [step, id] of Object.entries(COMMANDS)) $(id).textContent = commands[step];
  $('next-push').hidden = bot.kind !== 'push';
  $('next-pull').hidden = bot.kind !== 'pull';
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
  for (const id of Object.values(COMMANDS)) $(id).textContent = '';
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
    showErrors(error, { name: body.name, description, url });
  } finally {
    submit.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

/** Copies a secret field's value or a command's text; without the Clipboard API, selects it. */
async function copy(button) {
  const source = $(button.dataset.copy);
  const isField = source instanceof HTMLInputElement;
  const text = isField ? source.value : source.textContent;
  const status = $('copy-status');
  const what = button.dataset.what;
  try {
    // Clipboard API: only in secure contexts (https, localhost) and with permission.
    await navigator.clipboard.writeText(text);
    status.textContent = `${what} copied to the clipboard.`;
  } catch {
    // Fallback: select it so the user can copy it with Ctrl+C / ⌘C (or the old execCommand does it).
    if (isField) {
      source.focus();
      source.select();
    } else {
      getSelection()?.selectAllChildren(source);
    }
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
