/**
 * A transaction of a trade as the daemon signed it and the ledger keeps it (an attempt), the lease it was signed under
 * (a fence), and which chain a ledger describes: records that `chain/` sends and follows and `ledger/` stores, owned by
 * neither, so that neither imports the other.
 */
import type { Address, Hex } from 'viem';

export type AttemptPurpose = 'approve' | 'trade' | 'cancel';
/** signed: stored, never sent as far as we know · broadcast: maybe in a mempool · mined · reverted · replaced · dropped */
export type AttemptStatus = 'signed' | 'broadcast' | 'mined' | 'reverted' | 'replaced' | 'dropped';

export type NewAttempt = {
  intentId: string;
  purpose: AttemptPurpose;
  wallet: Address;
  chainId: number;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gasLimit: bigint;
  rawTx: Hex;
  hash: Hex;
  /** The wallet's tag binding it to its trade, made as it was signed (model/record-tags.ts); none on rows signed before tags. */
  tag?: Hex;
};

export type Attempt = NewAttempt & {
  id: number;
  status: AttemptStatus;
  blockNumber: bigint | null;
  gasUsed: bigint | null;
  effectiveGasPrice: bigint | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  /** The lease it was signed under: which daemon, at which epoch of the wallet's lease. */
  lease?: { holder: string; epoch: number };
};

/** A wallet's lease as its holder was given it: what its writes must show to be let through. */
export type Fence = { chainId: number; wallet: Address; holder: string; epoch: number };

/** Which chain a ledger describes: its id, and the hash of its block 0 (two chains may share an id). */
export type ChainIdentity = { chainId: number; genesisHash: Hex };
