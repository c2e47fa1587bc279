/**
 * Which NFT a V3 position strategy holds now. The file names the first; a re-range empties it and mints another,
 * whose id only the mint's receipt knows. Nothing is moved on a row's say, so the successor is taken from the wallet's
 * history (trade/wallet-history.ts: its rows proven by its tags) only as far as the chain vouches for it:
 *  - the file's position, while it holds liquidity (a strategy that opens its own has none);
 *  - else the strategy's latest mint (or re-ranging move) the wallet signed (whatever its state column says) whose transaction the chain
 *    shows from the wallet to the mint's tagged call, and whose receipt shows the NFT the manager minted to the
 *    wallet, still the wallet's;
 *  - else the file's, emptied (or gone, burned): the strategy holds nothing to keep.
 * A signed row cannot be deleted unseen (the proof before each signature refuses the hole).
 */
import { type Hex, isAddressEqual, parseEventLogs, zeroAddress } from 'viem';
import type { Wallet } from '../chain/wallet.ts';
import type { ChainClient } from '../chains.ts';
import { positionManagerAbi } from '../contracts/abi.ts';
import type { TradeRecord } from '../model/trade.ts';
import type { V3PositionStrategy } from '../strategy/types.ts';
import { ownTransactionReceipt } from '../trade/own-transaction.ts';
import type { WalletHistory } from '../trade/wallet-history.ts';

/** The position a strategy holds now, and how it came to be the one. */
export type HeldPosition =
  | { positionId: bigint; via: 'file' | { mintTx: Hex } }
  /** The file's position no longer exists (burned), and no position followed it. */
  | { gone: bigint }
  /** The strategy opens its own position (`open`), and has opened none the wallet's tags and the chain vouch for. */
  | { notOpened: true };

export async function heldPosition(
  strategy: V3PositionStrategy,
  deps: { client: ChainClient; wallet: Pick<Wallet, 'address'>; history: WalletHistory },
): Promise<HeldPosition> {
  const fromFile = strategy.positionId;
  const liquidity = fromFile === undefined ? undefined : await liquidityOf(deps.client, strategy, fromFile);
  if (fromFile !== undefined && liquidity !== undefined && liquidity > 0n) return { positionId: fromFile, via: 'file' };
  const mints = deps.history
    .ofStrategy(strategy.id)
    .filter((past) => opensAPosition(past.record))
    .sort((a, b) => b.record.createdAt - a.record.createdAt);
  for (const mint of mints) {
    for (const attempt of mint.attempts.filter((signed) => signed.purpose === 'trade').reverse()) {
      const minted = await mintedByWallet(strategy, mint.record, attempt.hash, deps);
      if (minted) return { positionId: minted.positionId, via: { mintTx: attempt.hash } };
    }
  }
  if (fromFile === undefined) return { notOpened: true };
  return liquidity === undefined ? { gone: fromFile } : { positionId: fromFile, via: 'file' };
}

/**
 * The positions the wallet's other strategies opened (a mint, or a re-ranging move), as far as the chain vouches for
 * each: the transaction from the wallet with the call it tagged, minting that NFT to the wallet, still the wallet's.
 */
export async function positionsOfOtherStrategies(
  strategy: V3PositionStrategy,
  deps: { client: ChainClient; wallet: Pick<Wallet, 'address'>; history: WalletHistory },
): Promise<bigint[]> {
  const others = deps.history.trades.filter((past) => past.record.strategyId !== strategy.id && opensAPosition(past.record));
  const ids: bigint[] = [];
  for (const past of others) {
    for (const attempt of past.attempts.filter((signed) => signed.purpose === 'trade')) {
      const minted = await mintedByWallet(strategy, past.record, attempt.hash, deps);
      if (minted) ids.push(minted.positionId);
    }
  }
  return ids;
}

/** A mint, or a move that minted the new range in the same transaction as it emptied the old one. */
const opensAPosition = (record: TradeRecord) => record.kind === 'mint' || (record.kind === 'move-position' && record.mint !== undefined);

/** The position's liquidity; none for one that no longer exists (burned). */
async function liquidityOf(client: ChainClient, strategy: V3PositionStrategy, positionId: bigint): Promise<bigint | undefined> {
  const position = await client
    .readContract({ address: strategy.positionManager.address, abi: positionManagerAbi, functionName: 'positions', args: [positionId] })
    .catch(() => undefined);
  return position?.[7];
}

/** The NFT a mint's transaction made, if the chain shows it from the wallet to the mint's call and the wallet still holds it. */
async function mintedByWallet(
  strategy: V3PositionStrategy,
  mint: TradeRecord,
  txHash: Hex,
  deps: { client: ChainClient; wallet: Pick<Wallet, 'address'> },
): Promise<{ positionId: bigint; txHash: Hex } | undefined> {
  const { client, wallet } = deps;
  const manager = strategy.positionManager.address;
  if (!mint.call || !isAddressEqual(mint.call.target, manager)) return undefined;
  const receipt = await ownTransactionReceipt(client, wallet.address, mint, txHash);
  if (!receipt) return undefined;
  const minted = parseEventLogs({ abi: positionManagerAbi, eventName: 'Transfer', logs: receipt.logs }).find(
    (event) => isAddressEqual(event.address, manager) && isAddressEqual(event.args.from, zeroAddress) && isAddressEqual(event.args.to, wallet.address),
  );
  if (!minted) return undefined;
  const owner = await client
    .readContract({ address: manager, abi: positionManagerAbi, functionName: 'ownerOf', args: [minted.args.tokenId] })
    .catch(() => undefined);
  return owner && isAddressEqual(owner, wallet.address) ? { positionId: minted.args.tokenId, txHash } : undefined;
}
