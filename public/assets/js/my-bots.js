// "My bots": sign in (a passkey, an OpenID provider, or an account token), then the account's bots with
// their state, pauses and last faults, and what an owner does for them: register, change settings, get a
// new token (shown once), retire. The session lives in an HttpOnly cookie; calls that change something
// carry its CSRF token (common.js). Secrets shown once live only in this page's DOM and are wiped on leave.
import { startAuthentication, startRegistration } from '/assets/vendor/simplewebauthn/index.js';
import {
  ApiError,
  api,
  botHref,
  el,
  errorMessage,
  forgetSession,
  formatDateTime,
  formatRating,
  matchHref,
  replaceChildren,
} from './common.js';

const $ = (id) => document.getElementById(id);

function say(text) {
  $('status').textContent = text;
}

/** Shows a secret once (a token, and a push bot's webhook secret), until "Done" or the page is left. */
function showSecret(title, value, extra = null) {
  $('secret-title').textContent = title;
  $('secret-value').value = value;
  $('secret-extra').hidden = extra === null;
  $('secret-extra-value').value = extra ?? '';
  $('secret').hidden = false;
  $('secret').focus();
}

function hideSecret() {
  $('secret-value').value = '';
  $('secret-extra-value').value = '';
  $('secret').hidden = true;
}

for (const [button, field] of [
  ['copy-secret', 'secret-value'],
  ['copy-secret-extra', 'secret-extra-value'],
]) {
  $(button).addEventListener('click', async () => {
    await navigator.clipboard?.writeText($(field).value).catch(() => {});
    say('Copied.');
  });
}
$('secret-done').addEventListener('click', hideSecret);
window.addEventListener('pagehide', hideSecret);

const CHALLENGES = {
  accept: 'accepts challenges',
  ask: 'asks before each challenge',
  refuse: 'refuses challenges',
};

/** One bot's card: its state, its pause and last fault, and what its owner may do. */
function botCard(bot) {
  const status = [bot.kind, bot.status, bot.paused ? 'paused' : null].filter(Boolean);
  const rows = [
    [
      'Rating',
      `${formatRating(bot.rating)} (${bot.ratedGames} rated games; ${bot.wins}–${bot.draws}–${bot.losses})`,
    ],
    [
      'Rated play',
      bot.ratedPlay ? 'yes: matchmaking and rated tournaments may pair it' : 'no: only challenges it accepts',
    ],
    ['Challenges', CHALLENGES[bot.challenges]],
  ];
  if (bot.url) rows.push(['URL', bot.url]);
  const card = el(
    'article',
    { class: 'card owned-bot', dataset: { botId: bot.id } },
    el(
      'h3',
      {},
      el('a', { href: botHref(bot.id) }, bot.name),
      ' ',
      el('span', { class: 'muted' }, status.join(' · ')),
    ),
    el(
      'dl',
      { class: 'profile' },
      rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value))),
    ),
  );
  if (bot.paused) {
    card.append(
      el(
        'p',
        { class: 'notice warn pause' },
        el('strong', {}, 'Paused'),
        ` until ${formatDateTime(bot.paused.until)}: ${bot.paused.reason}`,
        bot.paused.detail ? el('span', {}, ' — ', el('code', {}, bot.paused.detail)) : null,
      ),
    );
  }
  if (bot.lastFault) {
    card.append(
      el(
        'p',
        { class: 'last-fault' },
        'Last fault: ',
        el('strong', {}, bot.lastFault.fault.reason ?? bot.lastFault.reason),
        ` on ${formatDateTime(bot.lastFault.at)} in `,
        el('a', { href: matchHref(bot.lastFault.matchId) }, 'this match'),
        ': ',
        el('code', {}, bot.lastFault.fault.message),
      ),
    );
  }
  if (bot.status === 'active') card.append(settingsForm(bot), actions(bot));
  return card;
}

function settingsForm(bot) {
  const rated = el('input', { type: 'checkbox', name: 'ratedPlay', checked: bot.ratedPlay });
  const challenges = el(
    'select',
    { name: 'challenges' },
    Object.entries(CHALLENGES).map(([value, text]) =>
      el('option', { value, selected: value === bot.challenges }, text),
    ),
  );
  const description = el('input', {
    type: 'text',
    name: 'description',
    maxlength: 500,
    value: bot.description ?? '',
  });
  const error = el('p', { class: 'field-error', role: 'alert' });
  const form = el(
    'form',
    { class: 'settings' },
    el('div', { class: 'field' }, el('label', {}, rated, ' Rated play')),
    el('div', { class: 'field' }, el('label', {}, 'Challenges ', challenges)),
    el('div', { class: 'field' }, el('label', {}, 'Description ', description)),
    error,
    el('button', { type: 'submit' }, 'Save settings'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      await api(`/v1/bots/${bot.id}`, {
        method: 'PATCH',
        body: {
          ratedPlay: rated.checked,
          challenges: challenges.value,
          description: description.value || null,
        },
      });
      say(`${bot.name}: settings saved.`);
      await showBots();
    } catch (caught) {
      error.textContent = errorMessage(caught);
    }
  });
  return el('details', {}, el('summary', {}, 'Settings'), form);
}

function actions(bot) {
  const token = el('button', { type: 'button', class: 'new-token' }, 'New token');
  token.addEventListener('click', async () => {
    try {
      const secrets = await api(`/v1/bots/${bot.id}/token`, { method: 'POST' });
      showSecret(
        `New token of ${bot.name} (the old one no longer works)`,
        secrets.token,
        secrets.webhookSecret ?? null,
      );
    } catch (caught) {
      say(errorMessage(caught));
    }
  });
  const retire = el('button', { type: 'button', class: 'danger retire' }, 'Retire');
  retire.addEventListener('click', async () => {
    if (!window.confirm(`Retire ${bot.name}? It plays no more games; its record stays.`)) return;
    try {
      await api(`/v1/bots/${bot.id}`, { method: 'DELETE' });
      say(`${bot.name} is retired.`);
      await showBots();
    } catch (caught) {
      say(errorMessage(caught));
    }
  });
  return el('p', { class: 'actions' }, token, ' ', retire);
}

async function showBots() {
  const { items } = await api('/v1/accounts/me/bots');
  replaceChildren(
    $('bots'),
    items.length === 0 ? el('p', { class: 'muted' }, 'No bots yet: register one below.') : items.map(botCard),
  );
}

async function showAccount() {
  const account = await api('/v1/accounts/me');
  $('account-name').textContent = account.name;
  replaceChildren(
    $('passkeys'),
    account.passkeys.length === 0
      ? el('li', { class: 'muted' }, 'None yet: add one to sign in on this device without a token.')
      : account.passkeys.map((passkey) => {
          const remove = el('button', { type: 'button' }, 'Remove');
          remove.addEventListener('click', async () => {
            await api(`/v1/accounts/me/passkeys/${encodeURIComponent(passkey.id)}`, { method: 'DELETE' });
            await showAccount();
          });
          const used = passkey.lastUsedAt
            ? `last used ${formatDateTime(passkey.lastUsedAt)}`
            : 'not used yet';
          return el('li', { class: 'passkey' }, `${passkey.name} (${used}) `, remove);
        }),
  );
}

/** Which half of the page to show, from whether this browser is signed in. */
async function refresh() {
  forgetSession();
  const session = await api('/v1/session');
  $('signed-out').hidden = session !== null;
  $('signed-in').hidden = session === null;
  if (session !== null) await Promise.all([showAccount(), showBots()]);
  else {
    const providers = await api('/v1/session/providers');
    $('oidc').hidden = providers.oidc === null;
    if (providers.oidc) {
      $('oidc-link').textContent = `Sign in with ${providers.oidc.name}`;
      $('oidc-link').href = providers.oidc.startUrl;
    }
  }
}

async function addPasskey() {
  const { ceremonyId, options } = await api('/v1/accounts/me/passkeys/options', { method: 'POST' });
  const response = await startRegistration({ optionsJSON: options });
  await api('/v1/accounts/me/passkeys', { method: 'POST', body: { ceremonyId, response } });
  say('Passkey added: sign in with it on this device from now on.');
}

$('signin-passkey').addEventListener('click', async () => {
  try {
    const { ceremonyId, options } = await api('/v1/session/passkey/options', { method: 'POST' });
    const response = await startAuthentication({ optionsJSON: options });
    await api('/v1/session/passkey', { method: 'POST', body: { ceremonyId, response } });
    say('Signed in.');
    await refresh();
  } catch (caught) {
    say(caught instanceof ApiError ? errorMessage(caught) : `No passkey signed in (${caught.message}).`);
  }
});

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const token = $('account-token').value.trim();
  $('account-token').value = '';
  try {
    await api('/v1/session', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    say('Signed in.');
    await refresh();
  } catch (caught) {
    say(errorMessage(caught));
  }
});

$('account-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const created = await api('/v1/accounts', {
      method: 'POST',
      body: { name: $('account-name-input').value.trim() },
    });
    // Signed in with the new token at once; the page then offers to add a passkey.
    await api('/v1/session', { method: 'POST', headers: { authorization: `Bearer ${created.token}` } });
    await refresh();
    showSecret(`Account token of ${created.name}`, created.token);
    say('Account opened. Add a passkey below to sign in without the token.');
  } catch (caught) {
    say(errorMessage(caught));
  }
});

$('new-bot-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('new-bot-error').textContent = '';
  const url = $('new-bot-url').value.trim();
  try {
    const bot = await api('/v1/bots', {
      method: 'POST',
      body: {
        name: $('new-bot-name').value.trim(),
        ...(url ? { url } : {}),
        ratedPlay: $('new-bot-rated').checked,
        challenges: $('new-bot-challenges').value,
      },
    });
    $('new-bot-form').reset();
    showSecret(`Token of ${bot.name}`, bot.token, bot.webhookSecret ?? null);
    await showBots();
  } catch (caught) {
    $('new-bot-error').textContent = errorMessage(caught);
  }
});

$('add-passkey').addEventListener('click', async () => {
  try {
    await addPasskey();
    await showAccount();
  } catch (caught) {
    say(caught instanceof ApiError ? errorMessage(caught) : `No passkey added (${caught.message}).`);
  }
});

$('rotate-account-token').addEventListener('click', async () => {
  try {
    const { token } = await api('/v1/accounts/me/token', { method: 'POST' });
    showSecret('New account token (the old one no longer works)', token);
  } catch (caught) {
    say(errorMessage(caught));
  }
});

$('close-account').addEventListener('click', async () => {
  if (!window.confirm('Close the account? Every bot it owns is retired, and it signs in no more.')) return;
  try {
    await api('/v1/accounts/me', { method: 'DELETE' });
    say('Account closed.');
    await refresh();
  } catch (caught) {
    say(errorMessage(caught));
  }
});

$('signout').addEventListener('click', async () => {
  await api('/v1/session', { method: 'DELETE' });
  say('Signed out.');
  await refresh();
});

const failed = new URLSearchParams(window.location.search).get('signin');
if (failed) say(`Signing in did not work (${failed}). Try again.`);
refresh().catch((caught) => say(errorMessage(caught)));
