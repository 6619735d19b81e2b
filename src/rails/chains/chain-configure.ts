import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { redactUrl } from '../../lib/redact.js';
import type { SecretBox } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { type ChainInfo, type ChainName, chainInfo } from './chain-catalog.js';
import type { EffectiveChainSettings } from './chain-settings.js';
import { ChainMismatchError, type ChainSource, type NetworkFacts } from './chain-source.js';
import { emptyRow, sourceKey, verificationKey } from './chain-view.js';
import { type ChainsContext, chainOf, settingsOf, shown, view } from './chains-context.js';
import { type ChainWatcherRow, chainRow, saveChainSettings, saveVerification } from './chains-repository.js';

/** `PUT /admin/chains/{chain}` body: omitted fields keep their values; null clears one. */
export interface ChainSettingsInput {
  url?: string | null | undefined;
  api_key?: string | null | undefined;
  confirmations?: number | null | undefined;
  token_contract?: string | null | undefined;
  poll_seconds?: number | null | undefined;
  start_height?: number | undefined;
  chain_id?: number | null | undefined;
  genesis_hash?: string | null | undefined;
  rps?: number | null | undefined;
  enabled?: boolean | undefined;
}

/** The settings row fields `input` changes (the API key sealed). */
type SettingsPatch = ReturnType<typeof settingsPatch>;

/** The start cursor (the last height taken as seen) or null to keep it. */
type Cursor = { height: number } | null;

/** Refuses the fields that do not apply to the chain's family (VALIDATION_ERROR naming the field). */
function checkApplies(chain: ChainName, info: ChainInfo, input: ChainSettingsInput): void {
  if (input.token_contract && !info.token)
    throw invalidField('token_contract', `${chain} watches only its coin`);
  if (input.chain_id != null && info.family === 'esplora')
    throw invalidField(
      'chain_id',
      'applies to EVM chains, TRON and TON; Bitcoin and Litecoin take genesis_hash',
    );
  if (input.genesis_hash != null && info.family !== 'esplora')
    throw invalidField('genesis_hash', 'applies to Bitcoin and Litecoin only');
}

function settingsPatch(input: ChainSettingsInput, secretBox: SecretBox) {
  return {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.api_key !== undefined
      ? { apiKeySealed: input.api_key === null ? null : secretBox.seal(input.api_key) }
      : {}),
    ...(input.confirmations !== undefined ? { confirmations: input.confirmations } : {}),
    ...(input.token_contract !== undefined ? { tokenContract: input.token_contract } : {}),
    ...(input.poll_seconds !== undefined ? { pollSeconds: input.poll_seconds } : {}),
    ...(input.chain_id !== undefined ? { chainId: input.chain_id } : {}),
    ...(input.genesis_hash !== undefined ? { genesisHash: input.genesis_hash?.toLowerCase() ?? null } : {}),
    ...(input.rps !== undefined ? { rps: input.rps } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
  };
}

/**
 * A fresh source for `settings` and its network check, the errors turned into VALIDATION_ERROR
 * naming the setting to fix (with every URL redacted). The source is kept for the loop.
 */
async function checkSource(ctx: ChainsContext, chain: ChainName, settings: EffectiveChainSettings) {
  let source: ChainSource;
  try {
    source = ctx.sources(settings);
  } catch (err) {
    throw invalidField('url', shown(settings, (err as Error).message));
  }
  let facts: NetworkFacts;
  try {
    facts = await source.verifyNetwork();
  } catch (err) {
    const message = shown(settings, (err as Error).message);
    if (err instanceof ChainMismatchError) throw invalidField(err.field, message);
    throw invalidField('url', `the provider did not answer the network check: ${message}`);
  }
  ctx.built.set(chain, { key: sourceKey(settings), source, facts });
  return { source, facts };
}

/**
 * The network check of the merged settings when the watcher will run, and the start cursor:
 * `start_height` when given, else on first configuration the provider's head minus confirmations.
 */
async function checkAndStart(
  ctx: ChainsContext,
  chain: ChainName,
  merged: EffectiveChainSettings,
  before: ChainWatcherRow | undefined,
  startHeight: number | undefined,
): Promise<{ cursor: Cursor; facts: NetworkFacts | null }> {
  const given = startHeight !== undefined ? { height: startHeight - 1 } : null;
  if (!merged.enabled || !merged.url) return { cursor: given, facts: null };
  const checked = await checkSource(ctx, chain, merged);
  if (given || before?.cursorHeight != null) return { cursor: given, facts: checked.facts };
  const head = await checked.source.head().catch((err: Error) => {
    throw invalidField('url', `the provider did not answer: ${shown(merged, err.message)}`);
  });
  return { cursor: { height: Math.max(-1, head.height - merged.confirmations - 1) }, facts: checked.facts };
}

/** The audit record's `after`: the URL redacted, the API key only as set or cleared. */
function auditAfter(
  patch: SettingsPatch,
  input: ChainSettingsInput,
  cursor: Cursor,
  facts: NetworkFacts | null,
) {
  const { apiKeySealed: _hidden, ...rest } = patch;
  return {
    ...rest,
    ...(patch.url !== undefined ? { url: redactUrl(patch.url) } : {}),
    ...(input.api_key !== undefined ? { api_key: input.api_key === null ? null : 'set' } : {}),
    ...(cursor ? { start_height: cursor.height + 1 } : {}),
    ...(facts ? { network: facts.network, token_decimals: facts.tokenDecimals } : {}),
  };
}

/**
 * `PUT /admin/chains/{chain}`: merges the settings (docs/decisions.md section 25: omitted fields
 * keep their values). When the watcher will run, the URL is checked first (outside any
 * transaction, section 34): it must serve the expected network (chain id, TON global_id or
 * genesis hash: VALIDATION_ERROR naming `chain_id` or `genesis_hash` with the network found) and
 * hold the token with the chain's decimals (naming `token_contract`); a provider that does not
 * answer is refused naming `url`. Its head gives the default start (head minus confirmations).
 * The cursor is set on first configuration or when `start_height` is given. Audited with the URL
 * redacted and without the API key.
 */
export async function configureChain(
  ctx: ChainsContext,
  name: string,
  input: ChainSettingsInput,
  actor: AdminActor,
) {
  const db = ctx.database.db;
  const chain = chainOf(name);
  const info = chainInfo(chain);
  if (!info) throw new AppError('NOT_FOUND');
  checkApplies(chain, info, input);
  const before = await chainRow(db, chain);
  const patch = settingsPatch(input, ctx.secretBox);
  const merged = settingsOf(ctx, chain, { ...(before ?? emptyRow(chain)), ...patch } as ChainWatcherRow);
  const { cursor, facts } = await checkAndStart(ctx, chain, merged, before, input.start_height);
  await db.transaction(async (tx) => {
    const now = new Date(ctx.clock.now());
    await saveChainSettings(tx, chain, patch, cursor, now);
    if (facts) await saveVerification(tx, chain, { ...facts, verifiedFor: verificationKey(merged) }, now);
    await writeAudit(tx, actor, {
      action: 'chain.configure',
      targetType: 'chain',
      targetId: chain,
      after: auditAfter(patch, input, cursor, facts),
    });
  });
  return view(ctx, chain, await chainRow(db, chain));
}
