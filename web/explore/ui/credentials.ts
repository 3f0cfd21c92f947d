/**
 * The credential (an API key or a bearer token), entered once and kept for the tab (sessionStorage), as Swagger UI
 * keeps its authorization: sent as `Authorization: Bearer`, never shown again, never put in a URL or a curl command.
 */
import { h, fill } from './dom.js';

const KEY = 'topicgate.explorer.credential';

export function credential(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

function store(value: string | null): void {
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
}

/** The header's form; `changed` reloads what the page shows with the new credential. */
export function credentialsForm(host: HTMLElement, changed: () => void): void {
  const render = () => {
    const token = credential();
    if (token) {
      fill(
        host,
        h('span', { class: 'who', text: 'Credential set for this tab' }),
        h('button', {
          type: 'button',
          text: 'Forget credential',
          onclick: () => {
            store(null);
            render();
            changed();
          },
        }),
      );
      return;
    }
    const input = h('input', {
      id: 'credential',
      type: 'password',
      autocomplete: 'off',
      placeholder: 'API key or token',
      size: 24,
    });
    const form = h(
      'form',
      {
        class: 'credential-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          if (!input.value.trim()) return;
          store(input.value.trim());
          render();
          changed();
        },
      },
      h('label', { for: 'credential', text: 'Credential' }),
      input,
      h('button', { type: 'submit', text: 'Use' }),
    );
    fill(host, form);
  };
  render();
}
