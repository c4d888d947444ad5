// AT-SPI state numbers (AtspiStateType in atspi-constants.h). A state set travels as two
// 32-bit words (`au`); bit n of the 64-bit value is state n.

export const State = {
  ACTIVE: 1,
  CHECKED: 4,
  DEFUNCT: 6,
  EDITABLE: 7,
  ENABLED: 8,
  FOCUSED: 12,
  ICONIFIED: 15,
  MULTI_LINE: 17,
  PRESSED: 20,
  SELECTED: 23,
  SENSITIVE: 24,
  SHOWING: 25,
  SINGLE_LINE: 26,
  VISIBLE: 30,
  MANAGES_DESCENDANTS: 31,
  INDETERMINATE: 32,
  READ_ONLY: 43,
} as const;

export type StateSet = ReadonlySet<number>;

export function decodeStates(words: readonly number[]): StateSet {
  const states = new Set<number>();
  words.forEach((word, w) => {
    for (let bit = 0; bit < 32; bit++) {
      // `>>> 0` keeps bit 31 positive.
      if (((word >>> bit) & 1) === 1) states.add(w * 32 + bit);
    }
  });
  return states;
}
