import { useRuntimeTables } from './ledger.js';
import { adminKey, createKey, provisionAccount, type TestAccount } from './provisioning.js';
import { SimulatorControl } from './simulators.js';
import { LocalGateway, type LaunchOptions } from '../../../local/child-runtime.js';

/** A start, an account's provisioning and a simulator's set-up, together, on a slow machine. */
const SET_UP_TIMEOUT_MS = 120_000;

export interface GatewayOptions {
  /** Overrides of the runtime's environment, as `LocalGateway.start` takes them. */
  readonly env?: Record<string, string>;
  readonly launch?: LaunchOptions;
  /**
   * Points this test process's store modules at the runtime's tables, before anything is
   * provisioned: for files that seed or read the ledger directly.
   */
  readonly runtimeTables?: boolean;
  /** Provisions one account under this label (its email and name), with a dashboard session. */
  readonly account?: string;
  /**
   * A key for that account: through its dashboard session, as its owner makes one, or through the
   * admin API, which alone sets a rate limit or makes a publishable key. `body` is the request's
   * (the admin API's without `accountId`, which is the account's).
   */
  readonly key?: { readonly via: 'dashboard' | 'admin'; readonly body?: Record<string, unknown> };
  /** The upstream simulator the file drives, by provider name (runtime.json's `simulators`). */
  readonly simulator?: string;
  /** Lifts that simulator's QPS limits, for files that call it faster than the provider allows. */
  readonly unthrottled?: boolean;
  /** Clears its faults and recorded requests before each test, so none carries into the next. */
  readonly resetEach?: boolean;
}

/** What `useGateway` set up; each getter throws when read before its `beforeAll` or when not asked for. */
export interface GatewayFixture {
  readonly gateway: LocalGateway;
  readonly account: TestAccount;
  readonly key: string;
  readonly keyId: string;
  readonly simulator: SimulatorControl;
}

/**
 * One `LocalGateway` for the calling file (or describe block): started, provisioned as `options`
 * asks, in a `beforeAll`, and disposed of in an `afterAll`, both registered here. Call it at the
 * top of the file; hooks the file registers after it run on the started gateway.
 */
export function useGateway(options: GatewayOptions = {}): GatewayFixture {
  if (options.key && options.account === undefined) throw new Error('useGateway: a key needs an account');
  if ((options.unthrottled || options.resetEach) && options.simulator === undefined) {
    throw new Error('useGateway: unthrottled and resetEach need a simulator');
  }
  let gateway: LocalGateway | undefined;
  let account: TestAccount | undefined;
  let key: { keyId: string; key: string } | undefined;
  let simulator: SimulatorControl | undefined;

  beforeAll(async () => {
    gateway = await LocalGateway.start(options.env, options.launch);
    if (options.runtimeTables) useRuntimeTables(gateway);
    if (options.account !== undefined) account = await provisionAccount(gateway, options.account);
    if (account && options.key) key = await makeKey(gateway, account, options.key);
    if (options.simulator !== undefined) {
      simulator = SimulatorControl.of(gateway, options.simulator);
      if (options.unthrottled) await simulator.limits(null);
    }
  }, SET_UP_TIMEOUT_MS);
  // A failed start leaves nothing to dispose of, and its error is the one worth reading.
  afterAll(() => gateway?.dispose());
  if (options.resetEach) beforeEach(() => simulator?.reset());

  return {
    get gateway() {
      return present(gateway, 'gateway');
    },
    get account() {
      return present(account, 'account');
    },
    get key() {
      return present(key, 'key').key;
    },
    get keyId() {
      return present(key, 'key').keyId;
    },
    get simulator() {
      return present(simulator, 'simulator');
    },
  };
}

function makeKey(
  gateway: LocalGateway,
  account: TestAccount,
  { via, body = {} }: NonNullable<GatewayOptions['key']>,
): Promise<{ keyId: string; key: string }> {
  return via === 'dashboard'
    ? createKey(gateway, account, body)
    : adminKey(gateway, { accountId: account.accountId, ...body });
}

function present<T>(value: T | undefined, name: string): T {
  if (value === undefined) {
    throw new Error(`useGateway: no ${name}; read it in a test or a hook, and ask for it in the options`);
  }
  return value;
}
