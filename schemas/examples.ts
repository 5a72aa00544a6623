// One play's worth of real values (a localnet run: a dice bet, a Sweeper ticket cashed out after one row), used as the
// examples of the API document. They are consistent with each other: a commit example's signature signs its hash.
export const WALLET = 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo';
export const SESSION_PUBKEY = '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8';
export const challenge = {
  walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  message:
    'localhost:8080 wants you to sign in with your Solana account:\nHV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo\n\nSign in to the provably-fair wagering service (Protocol V1).\n\nURI: http://localhost:8080\nVersion: 1\nChain ID: localnet\nNonce: d995717ac63bada80e77ffbbffc89159\nIssued At: 2026-11-23T16:03:47.572Z\nExpiration Time: 2026-11-23T16:08:47.572Z',
  nonce: 'd995717ac63bada80e77ffbbffc89159',
  expiresAt: '2026-11-23T16:08:47.572Z',
};
export const sessionBody = {
  walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  message:
    'localhost:8080 wants you to sign in with your Solana account:\nHV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo\n\nSign in to the provably-fair wagering service (Protocol V1).\n\nURI: http://localhost:8080\nVersion: 1\nChain ID: localnet\nNonce: d995717ac63bada80e77ffbbffc89159\nIssued At: 2026-11-23T16:03:47.572Z\nExpiration Time: 2026-11-23T16:08:47.572Z',
  signature: 'n2Yh3sFvjXWZ0Pq8Q3T6tG1o0b2m6N5u7JtQ2kq9mYw7yJ0rZ8lW1y0vQ5a0b3c1d7e6f5g4h3i2j1k0l9m8nA==',
};
export const session = {
  token: 'd8b1c6f09a2e4b7c93f1e0a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f',
  walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  expiresAt: '2026-11-24T16:03:47.900Z',
};
export const sessionRevoked = { revoked: true as const, walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo' };
export const config = {
  cluster: 'localnet',
  rpcUrl: 'http://127.0.0.1:8899',
  usdcMint: '8v75dVDgtuM6vmGApCqgRS379KAvcNKSqJEieMNXSHAu',
  vaultAuthority: 'GRpv9r2s8wJxr5HX6zstHuLBK46FtUh4XVXB87EC5HKH',
  vaultTokenAccount: '2pmyynERrDPRemE6vyo57sNibCpQDhH9DYibfo6ieLCe',
  operatorPublicKey: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD',
  ackPublicKey: '3nH6agYSa3R6mNVwGBKkAJ2kqih52hXV5dkzxYNyUwCH',
  memoProgram: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  lpMint: '6vTZX8X9ndqiVQJP8zF7KGPdXmgaeW2RCQGZxSJLcW8f',
  rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
  explorerBaseUrl: 'https://explorer.solana.com',
};
export const house = {
  house: {
    totalValue: 1000001.68,
    baseBankroll: 1000000,
    gameNet: 1.68,
    volume: 3,
    apr: 4.074481273552257,
    maxExposure: 100000.168,
    utilization: 0,
    totalStaked: 0,
    sharePrice: 1.00000168,
    activeReserve: 0,
    idleReserve: 1000001.68,
    deployableToYield: 0,
    maxBet: 5000.0084,
    maxPayout: 10000.0168,
    openExposure: 0,
    strategy: 'cash',
  },
};
export const position = { position: { shares: 0, principal: 0, currentValue: 0, profit: 0, ownership: 0 } };
export const status = {
  walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  alias: 'p_UwWJ2XsPysN',
  balance: 50,
  exposure: 0,
  stakedInPlay: 0,
  pendingWithdrawals: 0,
  nonces: { bet: 0 },
  sessionKeys: [
    {
      sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
      status: 'active',
      slot: 3,
      signature: '4ZfnzLXMpAALkejjqRfby3dZ1YW7c2NcByhM5qDTjnzSSUki9KidRt8XuWwuamfY49Sa6xLzEDarQCpS1ax1d5Kg',
      updatedAt: '2026-11-23T16:03:39.364Z',
    },
  ],
  withdrawals: [],
  totals: { deposited: 50, wagered: 0, paidOut: 0, plays: 0, wins: 0 },
};
export const setupBody = { amount: 10, sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8' };
export const revokeBody = { sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8' };
export const unsignedTransaction = {
  transaction:
    'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAQADBvTqBykJHHoyCev3XIC03L1Gbl3lhEgnMd1lQcVDAiecGxjYwf4NGjiVAWW0JO6I9sbmS3FfgOqD1m6yg+E+PkedhKQnl45qSSzjGICvx9do1+mmSuL+siRlBqU1qX0p3nWcd0Cp52G9BvzyJrQkW4AVNmOcCoMWovQT514b8YDmBUpTWpkpIQZNJOhxYNo4fHw1td28kruB5B+oQEEFRI0G3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqQLvY0AhLVEXubEiXSiPK9l49pWhWM+Pk59UIvvJHnRrAgUEAgMBAAoMQEIPAAAAAAAGBAEAZ3Bmd3M6djE6c2V0dXA6SFYzVEtXSEZqM0VEMjNHSmV1enpiZ2NvMmlzM2dCQ0FkNUNVTEtHeVNyTm86N1pNeXFoR0J6RmNySGU4Y2ZBTlhoVFZ6aFhLcXZVeFgzN2lBV1ZQdjlhVjgA',
  lastValidBlockHeight: '173',
  memo: 'pfws:v1:setup:HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo:7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
};
export const sync = {
  applied: 0,
  status: {
    walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
    alias: 'p_UwWJ2XsPysN',
    balance: 48.32,
    exposure: 0,
    stakedInPlay: 0,
    pendingWithdrawals: 0,
    nonces: { bet: 4 },
    sessionKeys: [
      {
        sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
        status: 'active',
        slot: 3,
        signature: '4ZfnzLXMpAALkejjqRfby3dZ1YW7c2NcByhM5qDTjnzSSUki9KidRt8XuWwuamfY49Sa6xLzEDarQCpS1ax1d5Kg',
        updatedAt: '2026-11-23T16:03:39.364Z',
      },
    ],
    withdrawals: [],
    totals: { deposited: 50, wagered: 3, paidOut: 1.32, plays: 3, wins: 1 },
  },
};
export const faucetBody = { wallet: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo', usdc: 100, sol: 1 };
export const faucet = {
  wallet: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  tokenAccount: 'BbtKPoh54WoPB8MNFfzvTdfmhWQpC1ckLehgrLifHVKT',
  usdc: 1,
  sol: 1,
  signatures: [
    '4dgNh5jti7u1yWGvMCHDwm96psPh5iXkNaF597CXgCeh4LZUfSzHx9EDr2FfmcTBgvQFZipUQ5SRKPMbaQBYeHCM',
    '3916i6hWZ1Xi8sBmc47xTBMATgpEz5dQSnPTCnU2f7LjpL72PQ8ijhRMgCNqrsdKLE8hAzAnaPBMqEorqG9yXzEU',
  ],
};
export const dicePrepareBody = {
  commitment: '47ed7267506dea1dbaed45d22d81812b9c1b05d06e67bc3391beac18769b54f9',
  sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
  direction: 'under',
  target: 50,
  wager: 1,
};
export const dicePrepare = {
  betPayload: {
    protocol: 'pfws/v1',
    game: 'dice',
    player: 'p_UwWJ2XsPysN',
    sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
    betNonce: 0,
    wager: '1000000',
    params: { direction: 'under', targetBps: 5000 },
    commitment: '47ed7267506dea1dbaed45d22d81812b9c1b05d06e67bc3391beac18769b54f9',
    expiresAt: '2026-11-23T16:08:39.518Z',
  },
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  diceParams: {
    direction: 'under',
    target: 50,
    targetBps: 5000,
    winningCount: 5000,
    winChance: 50,
    multiplierBps: 19800,
    multiplier: 1.98,
    potentialPayout: 1.98,
  },
};
/** The commit sends back what prepare answered, signed. */
export const diceCommitBody = { ...dicePrepare, sessionSignature: 'ZPlDbChCf7VBQTr+OnfmlB5/7BeOP9n2pPnjU0KnNACndP1+SACnsTxvZXW42ANyHATUA8sfoLaqioDETzujCw==' };
export const diceCommit = {
  status: 'awaiting_reveal',
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  rngIndex: 1,
  ack: {
    betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
    betNonce: 0,
    rngIndex: 1,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:39.624Z',
    revealDeadline: '2026-11-24T16:03:39.624Z',
    ackHash: 'f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
    operatorSignature: 'u3D9LCJlNEcGnWIb7poCSwPzhDxi/6EFoHpVEtYppv6ROvQbgbBMMurMTmiAndg1fu795VDEs+uGSCbZOhV5Cg==',
    revealMessage:
      'pfws:v1:reveal:f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72:f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
  },
  revealMessage:
    'pfws:v1:reveal:f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72:f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
  revealDeadline: '2026-11-24T16:03:39.624Z',
};
export const diceRevealBody = {
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  clientSeedRaw: 'c560b64b3a3b2ea446999e8bf896b2598c4b96366a78f477066b567b74c794d0',
  sessionSignature: 'NMmCv8k9+hDSst2uOmIP9STcq21Ddol5Fg3KnwTHpCb237nIQsXUiFzyBluVPR/xjhlnmPDoaSNVDRnhD9pWAA==',
};
/** The bet-log entry of the example Dice bet: the reveal answers it and its receipt holds it. */
const diceBetLogEntry = {
  v: 1,
  receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
  game: 'dice',
  gameId: 'dice:protocol-v1',
  player: 'p_UwWJ2XsPysN',
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  ackHash: 'f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
  rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
  rngIndex: 1,
  commitment: '47ed7267506dea1dbaed45d22d81812b9c1b05d06e67bc3391beac18769b54f9',
  clientSeedRaw: 'c560b64b3a3b2ea446999e8bf896b2598c4b96366a78f477066b567b74c794d0',
  roll: 8598,
  status: 'lost',
  wager: '1000000',
  payout: '0',
  settledAt: '2026-11-23T16:03:39.864Z',
};

export const diceReveal = {
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
  outcome: {
    roll: 8598,
    rollDisplay: 85.98,
    direction: 'under',
    target: 50,
    targetBps: 5000,
    won: false,
    status: 'lost',
    multiplierBps: 19800,
    payout: 0,
    payoutMicro: '0',
    profit: -1,
  },
  rngReveal: 'e72a52c44c3162b4e0638ddcdc1183554bdfbcda9b2f6c1e31a1cdba5452f169',
  ack: {
    betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
    betNonce: 0,
    rngIndex: 1,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:39.624Z',
    revealDeadline: '2026-11-24T16:03:39.624Z',
    ackHash: 'f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
    operatorSignature: 'u3D9LCJlNEcGnWIb7poCSwPzhDxi/6EFoHpVEtYppv6ROvQbgbBMMurMTmiAndg1fu795VDEs+uGSCbZOhV5Cg==',
    revealMessage:
      'pfws:v1:reveal:f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72:f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
  },
  betLogEntry: diceBetLogEntry,
  betLogEntryHash: 'ac1eb3989e11e0c5bd47706e468fdfb9b18c09d26f56b796aedff59e0669c018',
  player: { balance: 49, exposure: 0, stakedInPlay: 0, nonce: 1 },
};
export const diceSession = {
  balance: 48,
  nonce: 2,
  serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
  recentRolls: [
    {
      receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
      roll: 8598,
      rollDisplay: 85.98,
      direction: 'under',
      target: 50,
      won: false,
      status: 'lost',
      wager: 1,
      payout: 0,
      settledAt: '2026-11-23T16:03:39.864Z',
      source: 'api',
    },
  ],
  pendingBet: {
    status: 'awaiting_reveal',
    betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
    betNonce: 1,
    rngIndex: 2,
    wager: 1,
    direction: 'under',
    target: 50,
    commitment: '53b55b646a116c8233279e7ec2c1d77035af4706eaf807d03aa08afc4faa4c23',
    committedAt: '2026-11-23T16:03:39.943Z',
    revealDeadline: '2026-11-24T16:03:39.943Z',
    ack: {
      betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
      betNonce: 1,
      rngIndex: 2,
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      committedAt: '2026-11-23T16:03:39.943Z',
      revealDeadline: '2026-11-24T16:03:39.943Z',
      ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
      operatorSignature: 'naw5WBxyOS0yJBia5P6K/eKF+6rpTS7z6wATs3zCR7xF+nvqsCQEQwHjWMAqnw0xfvMI4hUK3lwwYYPvGaFdDw==',
      revealMessage:
        'pfws:v1:reveal:2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb:4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
    },
  },
  pendingBets: [
    {
      status: 'awaiting_reveal',
      betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
      betNonce: 1,
      rngIndex: 2,
      wager: 1,
      direction: 'under',
      target: 50,
      commitment: '53b55b646a116c8233279e7ec2c1d77035af4706eaf807d03aa08afc4faa4c23',
      committedAt: '2026-11-23T16:03:39.943Z',
      revealDeadline: '2026-11-24T16:03:39.943Z',
      ack: {
        betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
        betNonce: 1,
        rngIndex: 2,
        rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
        committedAt: '2026-11-23T16:03:39.943Z',
        revealDeadline: '2026-11-24T16:03:39.943Z',
        ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
        operatorSignature: 'naw5WBxyOS0yJBia5P6K/eKF+6rpTS7z6wATs3zCR7xF+nvqsCQEQwHjWMAqnw0xfvMI4hUK3lwwYYPvGaFdDw==',
        revealMessage:
          'pfws:v1:reveal:2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb:4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
      },
    },
  ],
};
export const recoverySeedBody = {
  betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
  clientSeedRaw: '2835a6c8b3bc3142b9a0d1d676ac1fa97d97d4e69bc6469aa4353dc7f09a7166',
};
export const recoverySeedStored = { betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb', stored: true, state: 'committed' };
export const recoverySeed = {
  betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
  clientSeedRaw: '2835a6c8b3bc3142b9a0d1d676ac1fa97d97d4e69bc6469aa4353dc7f09a7166',
  state: 'committed',
  ack: {
    betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
    betNonce: 1,
    rngIndex: 2,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:39.943Z',
    revealDeadline: '2026-11-24T16:03:39.943Z',
    ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
    operatorSignature: 'naw5WBxyOS0yJBia5P6K/eKF+6rpTS7z6wATs3zCR7xF+nvqsCQEQwHjWMAqnw0xfvMI4hUK3lwwYYPvGaFdDw==',
    revealMessage:
      'pfws:v1:reveal:2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb:4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
  },
};
export const ticketBody = { mode: 'easy', sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8', wager: 1 };
export const ticketOpen = {
  ticket: {
    id: 't_dba96af4213f12ab58900e7a',
    status: 'running',
    outcome: null,
    mode: 'easy',
    betAmount: 1,
    clientSeed: '',
    nonce: 2,
    rowsWon: 0,
    payout: 0,
    multiplierBps: 9900,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:40.222Z',
    pendingTurn: null,
  },
  player: { balance: 47, exposure: 8.8888, stakedInPlay: 1, nonce: 2 },
};
export const choicePrepareBody = {
  ticketId: 't_dba96af4213f12ab58900e7a',
  commitment: 'a56d3d5a2d35230164a3167840137b2e9033790a67b1b4aad9baec0c3c91a254',
  sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
  row: 0,
  choiceColumn: 0,
};
export const choicePrepare = {
  betPayload: {
    protocol: 'pfws/v1',
    game: 'sweeper',
    player: 'p_UwWJ2XsPysN',
    sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
    betNonce: 2,
    wager: '1000000',
    params: { ticketId: 't_dba96af4213f12ab58900e7a', mode: 'easy', turn: 'choice', row: 0, choiceColumn: 0 },
    commitment: 'a56d3d5a2d35230164a3167840137b2e9033790a67b1b4aad9baec0c3c91a254',
    expiresAt: '2026-11-23T16:08:40.394Z',
  },
  betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
  sweeperParams: {
    ticketId: 't_dba96af4213f12ab58900e7a',
    mode: 'easy',
    turn: 'choice',
    row: 0,
    choiceColumn: 0,
    columns: 4,
    rowsWon: 0,
    currentPayout: 0,
    payoutIfSafe: 1.32,
  },
};
export const cashoutPrepareBody = {
  ticketId: 't_dba96af4213f12ab58900e7a',
  commitment: '955637c9ea5980689065466092384dc878ab7c716339bee2ec9f47e57b511be7',
  sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
};
export const cashoutPrepare = {
  betPayload: {
    protocol: 'pfws/v1',
    game: 'sweeper',
    player: 'p_UwWJ2XsPysN',
    sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
    betNonce: 3,
    wager: '1000000',
    params: { ticketId: 't_dba96af4213f12ab58900e7a', mode: 'easy', turn: 'cashout', rowsWon: 1 },
    commitment: '955637c9ea5980689065466092384dc878ab7c716339bee2ec9f47e57b511be7',
    expiresAt: '2026-11-23T16:08:40.964Z',
  },
  betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
  sweeperParams: { ticketId: 't_dba96af4213f12ab58900e7a', mode: 'easy', turn: 'cashout', rowsWon: 1, columns: 4, currentPayout: 1.32, payoutIfSafe: null },
};
/** The commit sends back what prepare answered, signed. */
export const sweeperCommitBody = {
  ...choicePrepare,
  sessionSignature: 'Radt6WCWeD3DqMKEIOyTyZ52P5A/qbW1EVZM+x35CBhVg0WOJwsG0c+VZCNRLAVdnYO3AoFmo1wcEpcsYJYBCQ==',
};
export const sweeperCommit = {
  status: 'awaiting_reveal',
  betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
  rngIndex: 3,
  ack: {
    betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
    betNonce: 2,
    rngIndex: 3,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:40.416Z',
    revealDeadline: '2026-11-24T16:03:40.416Z',
    ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
    operatorSignature: 'szDnbGhXISlQjgz2UJWQHV3JDKnWd4LfdboUCO5OXaqmSTIRxk6/ISKl4NtTj0N/37xzDTEsSWhQZKdGde0RAQ==',
    revealMessage:
      'pfws:v1:reveal:efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae:9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
  },
  revealMessage:
    'pfws:v1:reveal:efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae:9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
  revealDeadline: '2026-11-24T16:03:40.416Z',
  ticket: {
    id: 't_dba96af4213f12ab58900e7a',
    status: 'running',
    outcome: null,
    mode: 'easy',
    betAmount: 1,
    clientSeed: '',
    nonce: 2,
    rowsWon: 0,
    payout: 0,
    multiplierBps: 9900,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:40.222Z',
    pendingTurn: {
      status: 'awaiting_reveal',
      betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
      ack: {
        betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
        betNonce: 2,
        rngIndex: 3,
        rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
        committedAt: '2026-11-23T16:03:40.416Z',
        revealDeadline: '2026-11-24T16:03:40.416Z',
        ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
        operatorSignature: 'szDnbGhXISlQjgz2UJWQHV3JDKnWd4LfdboUCO5OXaqmSTIRxk6/ISKl4NtTj0N/37xzDTEsSWhQZKdGde0RAQ==',
        revealMessage:
          'pfws:v1:reveal:efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae:9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
      },
    },
  },
};
export const sweeperRevealBody = {
  betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
  clientSeedRaw: 'e44c6adb2608f8fb39cf36ba5bad0475c5bb3d9dbb98237b56e981657479155e',
  sessionSignature: 'cDRYWJxxcTVRamk6e36g3+ESUq0C8xa/eiwVDBGU2GL0VbU502V7MLIY6HMVw3duSq6TCUGF4Am6MJN7EbF5DA==',
};
export const sweeperReveal = {
  betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
  ticketId: 't_dba96af4213f12ab58900e7a',
  turn: {
    kind: 'choice',
    row: 0,
    choiceColumn: 0,
    mineColumn: 3,
    safe: true,
    rngIndex: 3,
    rngReveal: '29decaa8102b21909942c3a8a6056c8e0e3d70f9ecd677f47bb5403bd3b5f0ee',
  },
  ack: {
    betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
    betNonce: 2,
    rngIndex: 3,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:40.416Z',
    revealDeadline: '2026-11-24T16:03:40.416Z',
    ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
    operatorSignature: 'szDnbGhXISlQjgz2UJWQHV3JDKnWd4LfdboUCO5OXaqmSTIRxk6/ISKl4NtTj0N/37xzDTEsSWhQZKdGde0RAQ==',
    revealMessage:
      'pfws:v1:reveal:efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae:9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
  },
  ticket: {
    id: 't_dba96af4213f12ab58900e7a',
    status: 'running',
    outcome: null,
    mode: 'easy',
    betAmount: 1,
    clientSeed: 'e44c6adb2608f8fb39cf36ba5bad0475c5bb3d9dbb98237b56e981657479155e',
    nonce: 2,
    rowsWon: 1,
    payout: 1.32,
    multiplierBps: 13200,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [{ row: 0, column: 0, safe: true }],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:40.222Z',
    pendingTurn: null,
    resultColumns: [3],
  },
  receiptId: null,
  betLogEntry: null,
  betLogEntryHash: null,
  player: { balance: 47, exposure: 8.8888, stakedInPlay: 1, nonce: 3 },
};
/** The bet-log entry of the example ticket: the last reveal answers it and its receipt holds it. */
const sweeperBetLogEntry = {
  v: 1,
  receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
  game: 'sweeper',
  gameId: 'sweeper:protocol-v1',
  player: 'p_UwWJ2XsPysN',
  ticketId: 't_dba96af4213f12ab58900e7a',
  mode: 'easy',
  turns: [
    {
      betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
      ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      rngIndex: 3,
      commitment: 'a56d3d5a2d35230164a3167840137b2e9033790a67b1b4aad9baec0c3c91a254',
      clientSeedRaw: 'e44c6adb2608f8fb39cf36ba5bad0475c5bb3d9dbb98237b56e981657479155e',
      kind: 'choice',
      row: 0,
      choiceColumn: 0,
      mineColumn: 3,
    },
    {
      betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
      ackHash: 'a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      rngIndex: 4,
      commitment: '955637c9ea5980689065466092384dc878ab7c716339bee2ec9f47e57b511be7',
      clientSeedRaw: 'ac3e773f77909b0328d69d7e2a403053f20b20ddc1e32ea5c1db77d65aa98991',
      kind: 'cashout',
      row: null,
      choiceColumn: null,
      mineColumn: null,
    },
  ],
  rowsWon: 1,
  status: 'won',
  outcome: 'cashed_out',
  wager: '1000000',
  payout: '1320000',
  settledAt: '2026-11-23T16:03:41.001Z',
};

export const sweeperRevealEnd = {
  betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
  ticketId: 't_dba96af4213f12ab58900e7a',
  turn: {
    kind: 'cashout',
    row: null,
    choiceColumn: null,
    mineColumn: null,
    safe: null,
    rngIndex: 4,
    rngReveal: '64d7e0c326da75007f65fb5e468d125785391ba94865b46499d341694aa8c676',
  },
  ack: {
    betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
    betNonce: 3,
    rngIndex: 4,
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    committedAt: '2026-11-23T16:03:40.986Z',
    revealDeadline: '2026-11-24T16:03:40.986Z',
    ackHash: 'a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
    operatorSignature: 'eibpIzxvPz81BJwt5C/kH7JItMSBSBGwWvvLBnaGt2xQ1qLgwAiTmmyylo5kVj+oJ1fv0pafUl+Zs1JcSVBUBQ==',
    revealMessage:
      'pfws:v1:reveal:fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872:a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
  },
  ticket: {
    id: 't_dba96af4213f12ab58900e7a',
    status: 'settled',
    outcome: 'cashed_out',
    mode: 'easy',
    betAmount: 1,
    clientSeed: 'ac3e773f77909b0328d69d7e2a403053f20b20ddc1e32ea5c1db77d65aa98991',
    nonce: 2,
    rowsWon: 1,
    payout: 1.32,
    multiplierBps: 13200,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [{ row: 0, column: 0, safe: true }],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:40.222Z',
    pendingTurn: null,
    resultColumns: [3],
    endedAt: '2026-11-23T16:03:41.001Z',
  },
  receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
  betLogEntry: sweeperBetLogEntry,
  betLogEntryHash: '3f08e11e820931cb40163292890aac2b43c0e59673be0da19f7537ee01529c85',
  player: { balance: 48.32, exposure: 0, stakedInPlay: 0, nonce: 4 },
};
export const ticket = {
  ticket: {
    id: 't_dba96af4213f12ab58900e7a',
    status: 'settled',
    outcome: 'cashed_out',
    mode: 'easy',
    betAmount: 1,
    clientSeed: 'ac3e773f77909b0328d69d7e2a403053f20b20ddc1e32ea5c1db77d65aa98991',
    nonce: 2,
    rowsWon: 1,
    payout: 1.32,
    multiplierBps: 13200,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [{ row: 0, column: 0, safe: true }],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:40.222Z',
    pendingTurn: null,
    resultColumns: [3],
    endedAt: '2026-11-23T16:03:41.001Z',
  },
};
export const sweeperSession = {
  balance: 48.32,
  nonce: 4,
  serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
  activeTicket: null,
  recentTickets: [
    {
      ticketId: 't_dba96af4213f12ab58900e7a',
      receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
      mode: 'easy',
      outcome: 'cashed_out',
      rowsWon: 1,
      wager: 1,
      payout: 1.32,
      endedAt: '2026-11-23T16:03:41.001Z',
      source: 'api',
    },
  ],
};
export const diceReceipt = {
  receipt: {
    id: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
    receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d',
    game: 'dice',
    gameId: 'dice:protocol-v1',
    player: 'p_UwWJ2XsPysN',
    actorAlias: 'p_UwWJ2XsPysN',
    source: 'api',
    betAmount: 1,
    payout: 0,
    profit: -1,
    status: 'lost',
    input: {
      direction: 'under',
      target: 50,
      targetBps: 5000,
      wager: 1,
      wagerMicro: '1000000',
      commitment: '47ed7267506dea1dbaed45d22d81812b9c1b05d06e67bc3391beac18769b54f9',
      clientSeedRaw: 'c560b64b3a3b2ea446999e8bf896b2598c4b96366a78f477066b567b74c794d0',
      sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
      betNonce: 0,
    },
    result: {
      roll: 8598,
      rollDisplay: 85.98,
      direction: 'under',
      target: 50,
      targetBps: 5000,
      won: false,
      status: 'lost',
      multiplierBps: 19800,
      payout: 0,
      payoutMicro: '0',
      profit: -1,
    },
    proof: {
      betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
      ackHash: 'f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      rngIndex: 1,
      rngReveal: 'e72a52c44c3162b4e0638ddcdc1183554bdfbcda9b2f6c1e31a1cdba5452f169',
      revealedVia: 'reveal',
    },
    verifierPayload: {
      version: 1,
      betPayload: {
        protocol: 'pfws/v1',
        game: 'dice',
        player: 'p_UwWJ2XsPysN',
        sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
        betNonce: 0,
        wager: '1000000',
        params: { direction: 'under', targetBps: 5000 },
        commitment: '47ed7267506dea1dbaed45d22d81812b9c1b05d06e67bc3391beac18769b54f9',
        expiresAt: '2026-11-23T16:08:39.518Z',
      },
      betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
      commitSignature: 'ZPlDbChCf7VBQTr+OnfmlB5/7BeOP9n2pPnjU0KnNACndP1+SACnsTxvZXW42ANyHATUA8sfoLaqioDETzujCw==',
      ack: {
        betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
        betNonce: 0,
        rngIndex: 1,
        rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
        committedAt: '2026-11-23T16:03:39.624Z',
        revealDeadline: '2026-11-24T16:03:39.624Z',
        ackHash: 'f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
        operatorSignature: 'u3D9LCJlNEcGnWIb7poCSwPzhDxi/6EFoHpVEtYppv6ROvQbgbBMMurMTmiAndg1fu795VDEs+uGSCbZOhV5Cg==',
        revealMessage:
          'pfws:v1:reveal:f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72:f410d5ff1f96424517bdeac3125bbcc01f20b6fd24241800a143bc9e64921cd7',
      },
      revealSignature: 'NMmCv8k9+hDSst2uOmIP9STcq21Ddol5Fg3KnwTHpCb237nIQsXUiFzyBluVPR/xjhlnmPDoaSNVDRnhD9pWAA==',
      clientSeedRaw: 'c560b64b3a3b2ea446999e8bf896b2598c4b96366a78f477066b567b74c794d0',
      rngReveal: 'e72a52c44c3162b4e0638ddcdc1183554bdfbcda9b2f6c1e31a1cdba5452f169',
      betLogEntry: diceBetLogEntry,
    },
    anchor: {
      status: 'committed',
      commitId: 'commit-2',
      commitSignature: 'GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J',
      commitTransactionUrl:
        'https://explorer.solana.com/tx/GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      commitAccount: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD',
      commitExplorerUrl:
        'https://explorer.solana.com/address/5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      betLogEntryHash: 'ac1eb3989e11e0c5bd47706e468fdfb9b18c09d26f56b796aedff59e0669c018',
      betLogRoot: 'a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d',
      betLogIndex: 0,
      betLogProof: ['b7111f87a8bd046bd9744e29cffd4ee623397018d3a281ef4538e801906a30ab'],
      entryCount: 2,
      stateRoot: '42ce70e5066d415fc259f9e98fe6e4b05d8c0f97c4a2b2d3b7979674c999d118',
    },
    createdAt: '2026-11-23T16:03:39.864Z',
  },
};
export const sweeperReceipt = {
  receipt: {
    id: 'sweeper_t_dba96af4213f12ab58900e7a',
    receiptId: 'sweeper_t_dba96af4213f12ab58900e7a',
    game: 'sweeper',
    gameId: 'sweeper:protocol-v1',
    player: 'p_UwWJ2XsPysN',
    actorAlias: 'p_UwWJ2XsPysN',
    source: 'api',
    betAmount: 1,
    payout: 1.32,
    profit: 0.32,
    status: 'won',
    input: {
      ticketId: 't_dba96af4213f12ab58900e7a',
      mode: 'easy',
      wager: 1,
      wagerMicro: '1000000',
      turns: [
        {
          kind: 'choice',
          row: 0,
          choiceColumn: 0,
          commitment: 'a56d3d5a2d35230164a3167840137b2e9033790a67b1b4aad9baec0c3c91a254',
          clientSeedRaw: 'e44c6adb2608f8fb39cf36ba5bad0475c5bb3d9dbb98237b56e981657479155e',
        },
        {
          kind: 'cashout',
          row: null,
          choiceColumn: null,
          commitment: '955637c9ea5980689065466092384dc878ab7c716339bee2ec9f47e57b511be7',
          clientSeedRaw: 'ac3e773f77909b0328d69d7e2a403053f20b20ddc1e32ea5c1db77d65aa98991',
        },
      ],
    },
    result: { outcome: 'cashed_out', rowsWon: 1, resultColumns: [3], multiplierBps: 13200, payout: 1.32, payoutMicro: '1320000' },
    proof: {
      turns: [
        {
          betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
          ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
          rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
          rngIndex: 3,
          rngReveal: '29decaa8102b21909942c3a8a6056c8e0e3d70f9ecd677f47bb5403bd3b5f0ee',
        },
        {
          betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
          ackHash: 'a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
          rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
          rngIndex: 4,
          rngReveal: '64d7e0c326da75007f65fb5e468d125785391ba94865b46499d341694aa8c676',
        },
      ],
    },
    verifierPayload: {
      version: 1,
      ticketId: 't_dba96af4213f12ab58900e7a',
      mode: 'easy',
      wagerMicro: '1000000',
      turns: [
        {
          betPayload: {
            protocol: 'pfws/v1',
            game: 'sweeper',
            player: 'p_UwWJ2XsPysN',
            sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
            betNonce: 2,
            wager: '1000000',
            params: { ticketId: 't_dba96af4213f12ab58900e7a', mode: 'easy', turn: 'choice', row: 0, choiceColumn: 0 },
            commitment: 'a56d3d5a2d35230164a3167840137b2e9033790a67b1b4aad9baec0c3c91a254',
            expiresAt: '2026-11-23T16:08:40.394Z',
          },
          betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
          commitSignature: 'Radt6WCWeD3DqMKEIOyTyZ52P5A/qbW1EVZM+x35CBhVg0WOJwsG0c+VZCNRLAVdnYO3AoFmo1wcEpcsYJYBCQ==',
          ack: {
            betPayloadHash: 'efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae',
            betNonce: 2,
            rngIndex: 3,
            rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
            committedAt: '2026-11-23T16:03:40.416Z',
            revealDeadline: '2026-11-24T16:03:40.416Z',
            ackHash: '9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
            operatorSignature: 'szDnbGhXISlQjgz2UJWQHV3JDKnWd4LfdboUCO5OXaqmSTIRxk6/ISKl4NtTj0N/37xzDTEsSWhQZKdGde0RAQ==',
            revealMessage:
              'pfws:v1:reveal:efd06f367f43ef3e73782901e4f8133297724a9edd3b09b99b570a0a397838ae:9411f80e28da621dca21c950a8c582b873d9a23fca0b04c854d942d6ca44246e',
          },
          revealSignature: 'cDRYWJxxcTVRamk6e36g3+ESUq0C8xa/eiwVDBGU2GL0VbU502V7MLIY6HMVw3duSq6TCUGF4Am6MJN7EbF5DA==',
          clientSeedRaw: 'e44c6adb2608f8fb39cf36ba5bad0475c5bb3d9dbb98237b56e981657479155e',
          rngReveal: '29decaa8102b21909942c3a8a6056c8e0e3d70f9ecd677f47bb5403bd3b5f0ee',
        },
        {
          betPayload: {
            protocol: 'pfws/v1',
            game: 'sweeper',
            player: 'p_UwWJ2XsPysN',
            sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
            betNonce: 3,
            wager: '1000000',
            params: { ticketId: 't_dba96af4213f12ab58900e7a', mode: 'easy', turn: 'cashout', rowsWon: 1 },
            commitment: '955637c9ea5980689065466092384dc878ab7c716339bee2ec9f47e57b511be7',
            expiresAt: '2026-11-23T16:08:40.964Z',
          },
          betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
          commitSignature: 'OiWQ4iJJ9j4Y8acY+ohzVyuRskzteDkQzFLY/XjaBBT/+FHbZkwKBoudsZG2HBqy4mpAuVGiVzJZF1uA4J2VBw==',
          ack: {
            betPayloadHash: 'fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872',
            betNonce: 3,
            rngIndex: 4,
            rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
            committedAt: '2026-11-23T16:03:40.986Z',
            revealDeadline: '2026-11-24T16:03:40.986Z',
            ackHash: 'a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
            operatorSignature: 'eibpIzxvPz81BJwt5C/kH7JItMSBSBGwWvvLBnaGt2xQ1qLgwAiTmmyylo5kVj+oJ1fv0pafUl+Zs1JcSVBUBQ==',
            revealMessage:
              'pfws:v1:reveal:fa059e9140835067aeff7585c9051dfb9143af53fe8a11800a8db1d37768b872:a99cf1ed45e67dee7adc14b8aa0004c0606bd64f16b64e97e95c58eef493bb01',
          },
          revealSignature: 'FQUtSfgE8fz38ZMAHK9gO+hFgqq8gYQJ9b1oB1kqQlydOPfEr5LYV4yFhVttsw9xcfKN0yoCYqvDwQyOdvtwDQ==',
          clientSeedRaw: 'ac3e773f77909b0328d69d7e2a403053f20b20ddc1e32ea5c1db77d65aa98991',
          rngReveal: '64d7e0c326da75007f65fb5e468d125785391ba94865b46499d341694aa8c676',
        },
      ],
      betLogEntry: sweeperBetLogEntry,
    },
    anchor: {
      status: 'committed',
      commitId: 'commit-3',
      commitSignature: '5CjxgCQUY3MkYeHuDL6TS93tLEVueKoJpX4HXFKEy3Td1ePbt8cC6cZEP5PqJzSTxR2fRtxLTPnspA3oaiSwqkpS',
      commitTransactionUrl:
        'https://explorer.solana.com/tx/5CjxgCQUY3MkYeHuDL6TS93tLEVueKoJpX4HXFKEy3Td1ePbt8cC6cZEP5PqJzSTxR2fRtxLTPnspA3oaiSwqkpS?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      commitAccount: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD',
      commitExplorerUrl:
        'https://explorer.solana.com/address/5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      betLogEntryHash: '3f08e11e820931cb40163292890aac2b43c0e59673be0da19f7537ee01529c85',
      betLogRoot: '9e0b9efd4b49112dcc630aba5c527a7351048a8dacee167f9be37d0f4a68bd60',
      betLogIndex: 2,
      betLogProof: ['a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d'],
      entryCount: 3,
      stateRoot: '68e84b9c7605b4315d81230c0dca47153ea36439315b343d624137d0919f3cac',
    },
    createdAt: '2026-11-23T16:03:41.001Z',
  },
};
export const commits = {
  commits: [
    {
      commitId: 'commit-2',
      entryCount: 2,
      previousEntryCount: 0,
      betLogRoot: 'a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d',
      stateRoot: '42ce70e5066d415fc259f9e98fe6e4b05d8c0f97c4a2b2d3b7979674c999d118',
      totalLiabilities: '48000000',
      rngIndex: 2,
      rngReveal: '5f25bb6ed3571330cc5a19381b09713fa2b967751211bd385c07bd37b46bb8ca',
      manifestHash: 'f8e3dd9cf847d0d2d173011db397f999edf4f4cf547c4f04df7e41698f9af4d2',
      memo: 'pfws:v1:commit:2:a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d:42ce70e5066d415fc259f9e98fe6e4b05d8c0f97c4a2b2d3b7979674c999d118:48000000:2:5f25bb6ed3571330cc5a19381b09713fa2b967751211bd385c07bd37b46bb8ca:f8e3dd9cf847d0d2d173011db397f999edf4f4cf547c4f04df7e41698f9af4d2',
      signature: 'GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J',
      slot: 6,
      committedAt: '2026-11-23T16:03:40.683Z',
      transactionUrl:
        'https://explorer.solana.com/tx/GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      explorerUrl: 'https://explorer.solana.com/address/5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
    },
  ],
  committedSize: 3,
  nextAfterEntryCount: null,
};
export const consistency = {
  from: 2,
  to: 3,
  fromRoot: 'a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d',
  toRoot: '9e0b9efd4b49112dcc630aba5c527a7351048a8dacee167f9be37d0f4a68bd60',
  proof: ['3f08e11e820931cb40163292890aac2b43c0e59673be0da19f7537ee01529c85'],
};
export const entries = {
  entries: [
    { index: 0, leafHash: 'ac1eb3989e11e0c5bd47706e468fdfb9b18c09d26f56b796aedff59e0669c018', receiptId: 'dice_f565e4c7b498b86e4ccd13bab2fbea0d' },
    { index: 1, leafHash: 'b7111f87a8bd046bd9744e29cffd4ee623397018d3a281ef4538e801906a30ab', receiptId: 'dice_2b0617638f1d73090d2fc58e5be82da7' },
  ],
  size: 3,
  committedSize: 3,
};
export const events = {
  events: [
    {
      id: '1795449814461-0',
      seq: 1,
      type: 'house_funded',
      at: '2026-11-23T16:03:34.461Z',
      data: { signature: 'icd6uTqjjVRcR5XXgR85Ua6u2KtpCToAnxpqnWyaU6XFxqnBcV163vhpk4GDqNRQDLJ4TnBPBohK4yGqo5N2nYr', amount: '1000000000000' },
    },
    {
      id: '1795449819365-0',
      seq: 2,
      type: 'session_key_authorized',
      at: '2026-11-23T16:03:39.364Z',
      data: { sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8', player: 'p_UwWJ2XsPysN' },
    },
    { id: '1795449819372-0', seq: 3, type: 'deposit_credited', at: '2026-11-23T16:03:39.364Z', data: { amount: '50000000', player: 'p_UwWJ2XsPysN' } },
    {
      id: '1795449819628-0',
      seq: 4,
      type: 'bet_committed',
      at: '2026-11-23T16:03:39.624Z',
      data: {
        rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
        player: 'p_UwWJ2XsPysN',
        ticketId: '',
        wager: '1000000',
        betNonce: 0,
        game: 'dice',
        betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
        rngIndex: 1,
      },
    },
  ],
  lastSeq: 13,
};
export const manifest = {
  manifest: {
    version: 1,
    eventCount: 2,
    eventRoot: '0240a290956a05801b4b366106056744220d36156c8933e5182b915a3e7c0fe8',
    firstEventId: '1795449821007-0',
    lastEventId: '1795449821007-1',
    previousManifestHash: 'a382613fc78022e13bb1ad0df32bfa00a5b5b148a83c08902aca8541957c2a8f',
    manifestHash: 'bfdb22d005f162d6a8a020c0fa5362809783cfc6d6ad71afe8a13839939c4c8c',
    operatorPublicKey: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD',
    signature: 'l/76IGAmsrmNvFQ6//14+U5TKwbG4o1KMbf+k3z4hcZ5EZKyBLwdWHL743hdL5PJN4hQnASupbvheJ77U/S/AQ==',
    createdAt: '2026-11-23T16:03:41.308Z',
  },
};
export const stateProof = {
  wallet: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  epoch: 3,
  entryCount: 3,
  commitId: 'commit-3',
  commitSignature: '5CjxgCQUY3MkYeHuDL6TS93tLEVueKoJpX4HXFKEy3Td1ePbt8cC6cZEP5PqJzSTxR2fRtxLTPnspA3oaiSwqkpS',
  stateRoot: '68e84b9c7605b4315d81230c0dca47153ea36439315b343d624137d0919f3cac',
  totalLiabilities: '48320000',
  salt: '8fc1fc049bd93e3a4cb2312fa163cf89f52f2fb38ce43309ffb8fc8ccb2db82f',
  leaf: { id: '613f9eecbdb3faab13166074e0ab5a8f0c857a5ccfde5d893c6b3705c869bc3c', liability: '48320000' },
  proof: { id: '613f9eecbdb3faab13166074e0ab5a8f0c857a5ccfde5d893c6b3705c869bc3c', liability: '48320000', index: 0, count: 1, proof: [] },
};

// After the play, the same wallet: a withdrawal of 5 (paid and finalized by the keeper), an x402 top-up of 2.5, an LP
// deposit of 10, and a Sweeper ticket left idle until the deadline worker closed it. Built with the service's own code
// (protocol/, chain/) from the play's values; signatures only the example wallet, session key, anchor key or x402 fee
// payer could make are placeholders of the right form.
export const withdrawBody = { amount: 5 };
export const idempotencyKey = '3f1c9a52-7e0b-4d8e-a6c2-91b05d7e4f38';
export const withdrawal = { withdrawal: { id: 'wd_awixkedgc5hchst72erkow6scy', amount: 5, status: 'pending', createdAt: '2026-11-23T16:03:42.117Z' } };
export const topUpBody = { amount: 2.5 };
export const paymentRequired = {
  error: { code: 'X402_PAYMENT_REQUIRED', message: 'Payment required: build an x402 payment for accepts[0] and resend with the payment-signature header' },
  accepts: [
    {
      scheme: 'exact',
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      amount: '2500000',
      asset: '8v75dVDgtuM6vmGApCqgRS379KAvcNKSqJEieMNXSHAu',
      payTo: 'GRpv9r2s8wJxr5HX6zstHuLBK46FtUh4XVXB87EC5HKH',
      maxTimeoutSeconds: 60,
      extra: {
        memo: 'pfws:v1:x402:HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo:c51ae28dad57dc9baf3d08ec2d625f27',
        feePayer: 'Hn1sh87etUaaqi3M3dBDaPbmzAfya8FWbtjFXS254t4o',
      },
    },
  ],
  x402Version: 2,
  resource: { url: 'http://localhost:8080/api/protocol/v1/player/x402-deposit', description: 'Top up the arcade balance', mimeType: 'application/json' },
};
/** The `payment-signature` a stock @x402/svm client sends for `paymentRequired.accepts[0]`: base64 of x402's PaymentPayload. */
export const paymentSignature =
  'eyJ4NDAyVmVyc2lvbiI6MiwicGF5bG9hZCI6eyJ0cmFuc2FjdGlvbiI6IkFnQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQ1NGNzZYMDRvWm0vVWhTdDQ2TnJpbWVUeWIrTXlMUVdzZTZtWVdkb0VNMGtvRkp5aUIzUlZoNEx2T1JSUVNsS2hnejZrU0NhR2xxM1k2RStNQ1pkZ3RnQUlCQkFqNVF4Mk8wWHNWcjE4UXViUHU1WWdBRUhtNEt2U21SRGJ6MmJreHFUN01vUFRxQnlrSkhIb3lDZXYzWElDMDNMMUdibDNsaEVnbk1kMWxRY1ZEQWllY0d4all3ZjROR2ppVkFXVzBKTzZJOXNibVMzRmZnT3FEMW02eWcrRStQa2VkaEtRbmw0NXFTU3pqR0lDdng5ZG8xK21tU3VMK3NpUmxCcVUxcVgwcDNuV2NkMENwNTJHOUJ2enlKclFrVzRBVk5tT2NDb01Xb3ZRVDUxNGI4WURtQXdaR2IrVWhGekwvN0syNmNzT2I1N3lNNWJ2Rjl4SnJMRU9iT2tBQUFBQUZTbE5hbVNraEJrMGs2SEZnMmpoOGZEVzEzYnlTdTRIa0g2aEFRUVZFalFiZDl1SFhaYUdUMmN2aFJzN3JlYXdjdElYdFgxczNrVHFNOVlWKy93Q3BPaFhWaDFiZFowWkdsTFFRM1pMUmVMUTlmMDB3YU4xY3ZxNzhoK0JLMktrRUJRQUZBaUJPQUFBRkFBa0RBUUFBQUFBQUFBQUhCQU1FQWdFS0RLQWxKZ0FBQUFBQUJnWUFXbkJtZDNNNmRqRTZlRFF3TWpwSVZqTlVTMWRJUm1velJVUXlNMGRLWlhWNmVtSm5ZMjh5YVhNelowSkRRV1ExUTFWTVMwZDVVM0pPYnpwak5URmhaVEk0WkdGa05UZGtZemxpWVdZelpEQTRaV015WkRZeU5XWXlOd0E9In0sInJlc291cmNlIjp7InVybCI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9hcGkvcHJvdG9jb2wvdjEvcGxheWVyL3g0MDItZGVwb3NpdCIsImRlc2NyaXB0aW9uIjoiVG9wIHVwIHRoZSBhcmNhZGUgYmFsYW5jZSIsIm1pbWVUeXBlIjoiYXBwbGljYXRpb24vanNvbiJ9LCJhY2NlcHRlZCI6eyJzY2hlbWUiOiJleGFjdCIsIm5ldHdvcmsiOiJzb2xhbmE6RXRXVFJBQlphWXE2aU1mZVlLb3VSdTE2NlZVMnhxYTEiLCJhbW91bnQiOiIyNTAwMDAwIiwiYXNzZXQiOiI4djc1ZFZEZ3R1TTZ2bUdBcENxZ1JTMzc5S0F2Y05LU3FKRWllTU5YU0hBdSIsInBheVRvIjoiR1JwdjlyMnM4d0p4cjVIWDZ6c3RIdUxCSzQ2RnRVaDRYVlhCODdFQzVIS0giLCJtYXhUaW1lb3V0U2Vjb25kcyI6NjAsImV4dHJhIjp7Im1lbW8iOiJwZndzOnYxOng0MDI6SFYzVEtXSEZqM0VEMjNHSmV1enpiZ2NvMmlzM2dCQ0FkNUNVTEtHeVNyTm86YzUxYWUyOGRhZDU3ZGM5YmFmM2QwOGVjMmQ2MjVmMjciLCJmZWVQYXllciI6IkhuMXNoODdldFVhYXFpM00zZEJEYVBibXpBZnlhOEZXYnRqRlhTMjU0dDRvIn19fQ==';
export const topUp = {
  payment: { id: '4fdFZRgAavZ3QG3r5RhngMaPQSRCM9B6Gs4XuDHED3hZp3zH7EWK8WnugPyPN7oCTgjz5Jb3KVGTutHDxer4jKJ6', amount: 2.5 },
  balance: 45.82,
};
export const statusLater = {
  walletAddress: 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
  alias: 'p_UwWJ2XsPysN',
  balance: 45.82,
  exposure: 0,
  stakedInPlay: 0,
  pendingWithdrawals: 0,
  nonces: { bet: 4 },
  sessionKeys: [
    {
      sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
      status: 'active',
      slot: 3,
      signature: '4ZfnzLXMpAALkejjqRfby3dZ1YW7c2NcByhM5qDTjnzSSUki9KidRt8XuWwuamfY49Sa6xLzEDarQCpS1ax1d5Kg',
      updatedAt: '2026-11-23T16:03:39.364Z',
    },
  ],
  withdrawals: [
    {
      id: 'wd_awixkedgc5hchst72erkow6scy',
      amount: 5,
      status: 'finalized',
      createdAt: '2026-11-23T16:03:42.117Z',
      signature: '66n7QdKB3BoNFRxkWckPK3jcbFV5mYzjxWchHF4Qwt1cqbSJoT5q2FAtfpqAv7SEg4kz1LPNiNaHp6MuyUXVdEyZ',
      finalizedAt: '2026-11-23T16:03:42.904Z',
      explorerUrl:
        'https://explorer.solana.com/tx/66n7QdKB3BoNFRxkWckPK3jcbFV5mYzjxWchHF4Qwt1cqbSJoT5q2FAtfpqAv7SEg4kz1LPNiNaHp6MuyUXVdEyZ?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
    },
  ],
  totals: { deposited: 52.5, wagered: 3, paidOut: 1.32, plays: 3, wins: 1 },
};
export const lpDepositBody = { amount: 10 };
export const lpDepositTransaction = {
  transaction:
    'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAQADBvTqBykJHHoyCev3XIC03L1Gbl3lhEgnMd1lQcVDAiecGxjYwf4NGjiVAWW0JO6I9sbmS3FfgOqD1m6yg+E+PkedhKQnl45qSSzjGICvx9do1+mmSuL+siRlBqU1qX0p3nWcd0Cp52G9BvzyJrQkW4AVNmOcCoMWovQT514b8YDmBUpTWpkpIQZNJOhxYNo4fHw1td28kruB5B+oQEEFRI0G3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqXt4hqYQnPnZsordA+iHc2Q1877jY110mxy9yumr6FqbAgUEAgMBAAoMgJaYAAAAAAAGBAEAP3Bmd3M6djE6bHAtZGVwb3NpdDpIVjNUS1dIRmozRUQyM0dKZXV6emJnY28yaXMzZ0JDQWQ1Q1VMS0d5U3JObwA=',
  lastValidBlockHeight: '188',
  memo: 'pfws:v1:lp-deposit:HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
};
export const lpPosition = { position: { shares: 9.999993, principal: 10, currentValue: 10.000009, profit: 9e-6, ownership: 9.999893001139988e-6 } };
export const lpRedeemBody = { shares: '4' };
export const lpRedeemTransaction = {
  transaction:
    'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAQADBvTqBykJHHoyCev3XIC03L1Gbl3lhEgnMd1lQcVDAiecQeXJprDGfvLx0Th+nFGrCo31lUPQ2dJUrnXPBZy83VK3yUkLPqDnRVLuxC5DzYoJ4s5ubh1xhI7b4fWgEIzs5Ff8P/DuhR2Bj0GtW+xp1hVuuifmUSkyE1ndhjx5sRHYBUpTWpkpIQZNJOhxYNo4fHw1td28kruB5B+oQEEFRI0G3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqdJ2KMMkUpzYQ+LAh2l1NR/kETaiEN5ZUkjFArCNBvBLAgUEAQMCAAoMAAk9AAAAAAAGBAEAPnBmd3M6djE6bHAtcmVkZWVtOkhWM1RLV0hGajNFRDIzR0pldXp6YmdjbzJpczNnQkNBZDVDVUxLR3lTck5vAA==',
  lastValidBlockHeight: '192',
  memo: 'pfws:v1:lp-redeem:HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo',
};
export const agentKey = { sessionPubkey: '6QjfMjCnCiDUnhhnG8V2ciLHmuZj23uiviEwMYJFxZpH', authorized: false, status: 'not_authorized' };
export const trustRoot = {
  version: 1,
  protocol: 'pfws/v1',
  cluster: 'localnet',
  genesisHash: 'AVJdxz7YwzpbVttfeJGjsurVKmUAJAosVsS84FSif12v',
  usdcMint: '8v75dVDgtuM6vmGApCqgRS379KAvcNKSqJEieMNXSHAu',
  vaultTokenAccount: '2pmyynERrDPRemE6vyo57sNibCpQDhH9DYibfo6ieLCe',
  lpMint: '6vTZX8X9ndqiVQJP8zF7KGPdXmgaeW2RCQGZxSJLcW8f',
  memoProgram: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  checkpointOrigin: 'localhost/api/protocol/v1/bet-log',
  checkpointVerifierKeys: ['localhost/api/protocol/v1/bet-log+669a47f6+AUW9xabzlC6BVIT78WV/ZueQP6jCTGQfX/H0/at8xeka'],
  keys: {
    ack: [{ publicKey: '3nH6agYSa3R6mNVwGBKkAJ2kqih52hXV5dkzxYNyUwCH', validFrom: '2026-11-23T16:03:34.912Z' }],
    anchor: [{ publicKey: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD', validFrom: '2026-11-23T16:03:34.912Z' }],
    keeper: [{ publicKey: 'GRpv9r2s8wJxr5HX6zstHuLBK46FtUh4XVXB87EC5HKH', validFrom: '2026-11-23T16:03:34.912Z' }],
  },
};
/** The C2SP checkpoint of commit-3 (3 entries, root = consistency.toRoot), as `text/plain`. */
export const checkpoint =
  'localhost/api/protocol/v1/bet-log\n3\nngue/UtJES3MYwq6XFJ6c1EEio2s7hZ/m+N9D0povWA=\n\n— localhost/api/protocol/v1/bet-log ZppH9u2FBQZ/34sO2O4Vk5mJf3Cfg1TlCVHuOFmbfy2ezUn8QSQXbOcsHQdbJl3gCzjefYdNHe1BzuIUt5gh3nqoel0=\n';
/** Tile paths of that tree: the hash tile of its 3 leaves, and its entry and receipt bundles. */
export const hashTilePath = '0/000.p/3';
export const receiptBundlePath = '000.p/3';
export const sessionKeyPointer = {
  betPayloadHash: 'f565e4c7b498b86e4ccd13bab2fbea0d4b4a1ab3b148edbf384d94049daa2f72',
  sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
  signature: '4ZfnzLXMpAALkejjqRfby3dZ1YW7c2NcByhM5qDTjnzSSUki9KidRt8XuWwuamfY49Sa6xLzEDarQCpS1ax1d5Kg',
  slot: 3,
};
/** The play's second Dice bet (log index 1), as the receipt bundle serves it: rebuilt from its payload, ack, seed and RNG reveal; its leaf is entries.entries[1]. */
const diceReceipt2 = {
  id: 'dice_2b0617638f1d73090d2fc58e5be82da7',
  receiptId: 'dice_2b0617638f1d73090d2fc58e5be82da7',
  game: 'dice',
  gameId: 'dice:protocol-v1',
  player: 'p_UwWJ2XsPysN',
  actorAlias: 'p_UwWJ2XsPysN',
  source: 'api',
  betAmount: 1,
  payout: 0,
  profit: -1,
  status: 'lost',
  input: {
    direction: 'under',
    target: 50,
    targetBps: 5000,
    wager: 1,
    wagerMicro: '1000000',
    commitment: '53b55b646a116c8233279e7ec2c1d77035af4706eaf807d03aa08afc4faa4c23',
    clientSeedRaw: '2835a6c8b3bc3142b9a0d1d676ac1fa97d97d4e69bc6469aa4353dc7f09a7166',
    sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
    betNonce: 1,
  },
  result: {
    roll: 7989,
    rollDisplay: 79.89,
    direction: 'under',
    target: 50,
    targetBps: 5000,
    won: false,
    status: 'lost',
    multiplierBps: 19800,
    payout: 0,
    payoutMicro: '0',
    profit: -1,
  },
  proof: {
    betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
    ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
    rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    rngIndex: 2,
    rngReveal: '5f25bb6ed3571330cc5a19381b09713fa2b967751211bd385c07bd37b46bb8ca',
    revealedVia: 'reveal',
  },
  verifierPayload: {
    version: 1,
    betPayload: {
      protocol: 'pfws/v1',
      game: 'dice',
      player: 'p_UwWJ2XsPysN',
      sessionPubkey: '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8',
      betNonce: 1,
      wager: '1000000',
      params: { direction: 'under', targetBps: 5000 },
      commitment: '53b55b646a116c8233279e7ec2c1d77035af4706eaf807d03aa08afc4faa4c23',
      expiresAt: '2026-11-23T16:08:39.926Z',
    },
    betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
    commitSignature: '0cwhvg9O71FI+f0CxwYhxEngOUqIAxgyWP1xvqD8RA+5qCg+grdvPW1G7Qz8QW/CNRiBVlDIGXZafJSMBeZBXQ==',
    ack: {
      betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
      betNonce: 1,
      rngIndex: 2,
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      committedAt: '2026-11-23T16:03:39.943Z',
      revealDeadline: '2026-11-24T16:03:39.943Z',
      ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
      operatorSignature: 'naw5WBxyOS0yJBia5P6K/eKF+6rpTS7z6wATs3zCR7xF+nvqsCQEQwHjWMAqnw0xfvMI4hUK3lwwYYPvGaFdDw==',
      revealMessage:
        'pfws:v1:reveal:2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb:4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
    },
    revealSignature: 'Q55CqjUypqRA7O1dOyQPTum4Yi6VxsU37ygf4U+3K9aneSfexJF3iRfHFl4GBfduHH5Q+9xZbm7AANARt/yw3A==',
    clientSeedRaw: '2835a6c8b3bc3142b9a0d1d676ac1fa97d97d4e69bc6469aa4353dc7f09a7166',
    rngReveal: '5f25bb6ed3571330cc5a19381b09713fa2b967751211bd385c07bd37b46bb8ca',
    betLogEntry: {
      v: 1,
      receiptId: 'dice_2b0617638f1d73090d2fc58e5be82da7',
      game: 'dice',
      gameId: 'dice:protocol-v1',
      player: 'p_UwWJ2XsPysN',
      betPayloadHash: '2b0617638f1d73090d2fc58e5be82da7ae12a8666a4b108f3a12e2a3f4447beb',
      ackHash: '4280eeee308414bb472b7e8ee3af4f5e7a2a9f9e5090fb83d2eba4f599efcf84',
      rngChainHead: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
      rngIndex: 2,
      commitment: '53b55b646a116c8233279e7ec2c1d77035af4706eaf807d03aa08afc4faa4c23',
      clientSeedRaw: '2835a6c8b3bc3142b9a0d1d676ac1fa97d97d4e69bc6469aa4353dc7f09a7166',
      roll: 7989,
      status: 'lost',
      wager: '1000000',
      payout: '0',
      settledAt: '2026-11-23T16:03:40.190Z',
    },
  },
  anchor: {
    status: 'committed',
    commitId: 'commit-2',
    commitSignature: 'GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J',
    commitTransactionUrl:
      'https://explorer.solana.com/tx/GP5vE6Kuj7X66YCA1JwUXWcAokaMCGsDU6aNUzeryhAD2thgkw4X75Dg6heJXrptQWpXMdbZgpGwPaLLktWMS7J?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
    commitAccount: '5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD',
    commitExplorerUrl:
      'https://explorer.solana.com/address/5hEy4RNutVocgffpJRqjCAY4exgKkpsFp1wW9rifGYrD?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
    betLogEntryHash: 'b7111f87a8bd046bd9744e29cffd4ee623397018d3a281ef4538e801906a30ab',
    betLogRoot: 'a3799ce85a582c1ac4de7650de062052bf913a27968dbe568339732928d8147d',
    betLogIndex: 1,
    betLogProof: ['ac1eb3989e11e0c5bd47706e468fdfb9b18c09d26f56b796aedff59e0669c018'],
    entryCount: 2,
    stateRoot: '42ce70e5066d415fc259f9e98fe6e4b05d8c0f97c4a2b2d3b7979674c999d118',
  },
  createdAt: '2026-11-23T16:03:40.190Z',
};
export const receiptBundle = { receipts: [diceReceipt.receipt, diceReceipt2, sweeperReceipt.receipt] };
export const idleTicket = {
  ticket: {
    id: 't_2125e44f59411d7a07aa4f4f',
    status: 'settled',
    outcome: 'expired',
    mode: 'easy',
    betAmount: 1,
    clientSeed: '',
    nonce: 4,
    rowsWon: 0,
    payout: 1,
    multiplierBps: 9900,
    fullBoardPayout: 9.8888,
    columns: 4,
    rows: 8,
    choices: [],
    serverSeedHash: '89edf23e30fc0e2d0d6b70c0f7d6c700f11be96241a6e48ba918047f1eed4447',
    createdAt: '2026-11-23T16:03:47.305Z',
    pendingTurn: null,
    closedBy: 'idle',
    resultColumns: [],
    endedAt: '2026-11-23T16:18:48.412Z',
  },
};
export const idleReceipt = {
  receipt: {
    id: 'sweeper_t_2125e44f59411d7a07aa4f4f',
    receiptId: 'sweeper_t_2125e44f59411d7a07aa4f4f',
    game: 'sweeper',
    gameId: 'sweeper:protocol-v1',
    player: 'p_UwWJ2XsPysN',
    actorAlias: 'p_UwWJ2XsPysN',
    source: 'api',
    betAmount: 1,
    payout: 1,
    profit: 0,
    status: 'expired',
    input: { ticketId: 't_2125e44f59411d7a07aa4f4f', mode: 'easy', wager: 1, wagerMicro: '1000000', turns: [] },
    result: { outcome: 'expired', rowsWon: 0, resultColumns: [], multiplierBps: 9900, payout: 1, payoutMicro: '1000000' },
    proof: { turns: [] },
    verifierPayload: {
      version: 1,
      ticketId: 't_2125e44f59411d7a07aa4f4f',
      mode: 'easy',
      wagerMicro: '1000000',
      turns: [],
      closedBy: 'idle',
      betLogEntry: {
        v: 1,
        receiptId: 'sweeper_t_2125e44f59411d7a07aa4f4f',
        game: 'sweeper',
        gameId: 'sweeper:protocol-v1',
        player: 'p_UwWJ2XsPysN',
        ticketId: 't_2125e44f59411d7a07aa4f4f',
        mode: 'easy',
        turns: [],
        rowsWon: 0,
        status: 'expired',
        outcome: 'expired',
        closedBy: 'idle',
        wager: '1000000',
        payout: '1000000',
        settledAt: '2026-11-23T16:18:48.412Z',
      },
    },
    anchor: {
      status: 'pending_commit',
      commitId: 'pending',
      commitSignature: null,
      commitTransactionUrl: null,
      commitAccount: null,
      commitExplorerUrl: null,
      betLogEntryHash: 'db3f5f8b354f3884100cde1925e4867c0c45f6da0e9deda56dbc543867534ddc',
      betLogRoot: null,
      betLogIndex: null,
      betLogProof: [],
      entryCount: null,
      stateRoot: null,
    },
    createdAt: '2026-11-23T16:18:48.412Z',
    closedBy: 'idle',
  },
};
