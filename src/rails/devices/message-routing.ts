/**
 * Which bank and which of the device's requisites a message is about (docs/decisions.md section 24),
 * before any order is looked at. Pure: the caller gives the banks' formats with their effective
 * sources and the device's bound requisites.
 */
import {
  type BankFormat,
  banksOfSource,
  type MessageChannel,
  type ParsedMessage,
  parseBankMessage,
} from '../../modules/bank-messages/index.js';

/** A requisite bound to the device, as routing needs it. */
export interface BoundRequisite {
  id: string;
  bankCode: string | null;
  masks: readonly string[];
}

/** The routing of one message. */
export interface MessageRoute {
  /** The bank whose rules read it, if any did. */
  bank?: BankFormat;
  /** The source is one of that bank's SMS senders or app packages. */
  sourceAllowed: boolean;
  parsed: ParsedMessage;
  /** The bound requisites it may be about (several only when the message shows no mask). */
  requisites: BoundRequisite[];
  /** A mask was shown that none of the bank's bound requisites has. */
  maskUnknown: boolean;
}

/**
 * Whether a text from a sender no bank lists is kept as a bank's (for review as `unknown_source`):
 * a credit, a block, or money whose reading is in doubt. Anything else (also a text that names no
 * direction or no movement) is a private message.
 */
function mayBeMoney(parsed: ParsedMessage): boolean {
  if (parsed.status === 'parsed') return parsed.kind === 'credit' || parsed.kind === 'block';
  return parsed.status === 'ambiguous' && parsed.doubt !== 'no_direction' && parsed.doubt !== 'no_movement';
}

/**
 * Routes a message: the banks that own the source (those of a bound requisite first); when the
 * source is no bank's, the bound requisites' banks are tried so that a credit or block from an
 * unknown sender is noticed (never credited). The requisites are the bound ones of that bank,
 * narrowed by the message's mask.
 */
export function routeMessage(
  formats: readonly BankFormat[],
  bound: readonly BoundRequisite[],
  message: { channel: MessageChannel; source: string; text: string; title?: string },
): MessageRoute {
  const boundCodes = new Set(bound.map((r) => r.bankCode));
  const owners = banksOfSource(formats, message.channel, message.source);
  const sourceAllowed = owners.length > 0;
  const tried = sourceAllowed
    ? [...owners.filter((f) => boundCodes.has(f.code)), ...owners.filter((f) => !boundCodes.has(f.code))]
    : formats.filter((f) => boundCodes.has(f.code));
  const read = {
    channel: message.channel,
    text: message.text,
    ...(message.title ? { title: message.title } : {}),
  };
  let bank: BankFormat | undefined;
  let parsed: ParsedMessage = { status: 'unparsed' };
  for (const format of tried) {
    const attempt = parseBankMessage(format, read);
    if (attempt.status === 'unparsed' || (!sourceAllowed && !mayBeMoney(attempt))) continue;
    bank = format;
    parsed = attempt;
    break;
  }
  // A known source whose text no rule reads is still that bank's (a new format for review).
  if (!bank && sourceAllowed) bank = tried[0];
  const ofBank = bank ? bound.filter((r) => r.bankCode === bank.code) : [];
  const mask = parsed.status === 'parsed' ? parsed.fields.mask : undefined;
  const requisites = mask ? ofBank.filter((r) => r.masks.includes(mask)) : ofBank;
  return {
    ...(bank ? { bank } : {}),
    sourceAllowed,
    parsed,
    requisites,
    maskUnknown: mask !== undefined && ofBank.length > 0 && requisites.length === 0,
  };
}
