// The verify page: a receipt id or JSON in, every step and check of the verifier library out, as each finishes.
import { getJson } from '../api.ts';
import { byId, h, replace } from '../dom.ts';
import { explorer } from '../explorer.ts';
import type { PublishedConfig } from '../types.ts';
import { describeCheck } from '../verify/describe.ts';
import { rpcClient } from '../verify/chain.ts';
import { runVerification, type PinnedKeys, type Pins, type Sink, type Step } from '../verify/run.ts';

const form = byId<HTMLFormElement>('verify-form');
const input = byId<HTMLTextAreaElement>('receipt-input');
const rpcInput = byId<HTMLInputElement>('rpc-input');
const button = byId<HTMLButtonElement>('verify-button');
const forget = byId<HTMLButtonElement>('forget-pins');
const result = byId('result');
const verdict = byId('verdict');
const steps = byId('steps');
const checks = byId('checks');

const PIN_KEY = 'pfws.pinnedKeys';

const pins: Pins = {
  get() {
    try {
      const raw = localStorage.getItem(PIN_KEY);
      return raw ? (JSON.parse(raw) as PinnedKeys) : null;
    } catch {
      return null;
    }
  },
  set(keys) {
    try {
      localStorage.setItem(PIN_KEY, JSON.stringify(keys));
    } catch {
      // Private modes may refuse storage; the run still checks against the keys it read.
    }
    forget.hidden = false;
  },
};

const STATUS_TEXT = { running: 'Running', pass: 'Passed', fail: 'Failed', skip: 'Skipped', error: 'Could not check' } as const;

function item(attrs: Record<string, string>, label: string, name?: string) {
  const badge = h('span', { class: 'badge' }, STATUS_TEXT.running);
  const detail = h('span', { class: 'detail' });
  const li = h('li', { ...attrs, 'data-status': 'running' }, badge, h('span', { class: 'label' }, label, name ? [' ', h('code', {}, name)] : null), detail);
  const set = (status: keyof typeof STATUS_TEXT, text?: string, link?: { href: string; text: string }) => {
    li.dataset.status = status;
    badge.textContent = STATUS_TEXT[status];
    replace(detail, text ?? '', link ? [' ', h('a', { href: link.href, rel: 'noopener noreferrer', target: '_blank' }, link.text)] : null);
  };
  return { li, set };
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

const sink: Sink = {
  step(id, label): Step {
    const { li, set } = item({ 'data-step': id }, label);
    steps.append(li);
    return {
      pass: (detail, link) => set('pass', detail, link),
      fail: (reason) => set('fail', reason),
      skip: (reason) => set('skip', reason),
    };
  },
  async check(check) {
    const { li, set } = item({ 'data-check': check.name }, describeCheck(check.name), check.name);
    checks.append(li);
    set(check.status, check.reason);
    // One frame per check, so the list visibly fills in order rather than all at once.
    await nextFrame();
  },
};

let config: PublishedConfig | null = null;

async function verify(): Promise<void> {
  button.disabled = true;
  button.textContent = 'Verifying…';
  result.hidden = false;
  replace(steps);
  replace(checks);
  verdict.dataset.ok = '';
  verdict.textContent = 'Verifying…';
  try {
    const outcome = await runVerification(input.value, rpcInput.value, {
      api: getJson,
      rpc: (url) => rpcClient(url),
      pins,
      sink,
      explorer: (c) => explorer(c),
      now: () => new Date(),
    });
    verdict.dataset.ok = String(outcome.ok);
    if (outcome.stopped) verdict.textContent = `Not verified: ${outcome.stopped}`;
    else if (outcome.report) {
      const failed = outcome.report.checks.filter((c) => c.status === 'fail');
      verdict.textContent = outcome.ok
        ? `Verified: all ${outcome.report.checks.length} checks passed for ${outcome.report.subject}.`
        : `Not verified: ${failed.length} check${failed.length === 1 ? '' : 's'} failed for ${outcome.report.subject}: ${failed.map((c) => c.name).join(', ')}. The reasons are listed with each check below.`;
    }
  } finally {
    button.disabled = false;
    button.textContent = 'Verify';
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void verify();
});
forget.addEventListener('click', () => {
  localStorage.removeItem(PIN_KEY);
  forget.hidden = true;
  verdict.dataset.ok = '';
  verdict.textContent = 'The pinned keys are forgotten; the next run pins the keys the service publishes then.';
});
forget.hidden = pins.get() === null;

async function init(): Promise<void> {
  try {
    config = await getJson<PublishedConfig>('/protocol/v1/config');
    if (!rpcInput.value) rpcInput.value = config.rpcUrl;
  } catch (err) {
    rpcInput.placeholder = 'The service did not say; enter an RPC URL';
    console.error(err);
  }
  const id = new URLSearchParams(location.search).get('id');
  if (id) {
    input.value = id;
    await verify();
  }
}

void init();
