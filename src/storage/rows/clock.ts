/** Milliseconds since the epoch, as this instance's clock reads them (a test can run one instance's clock off). */
export type Clock = () => number;
