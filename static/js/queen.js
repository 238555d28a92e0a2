// What the Queen of Hearts says at the end of a game. Pure: names and numbers in, lines out.
// She speaks to people by name, in the second person: to one person as «tú» (te llevaste, te
// pasaste, contigo), to two or more as «ustedes» (se llevaron, se pasaron, con ustedes); every
// verb and pronoun agrees with how many people the line is about.

const NUMBER_WORDS = { 2: 'dos', 3: 'tres', 4: 'cuatro' };

export const points = (n) => `${n} ${n === 1 ? 'punto' : 'puntos'}`;

/** «Ana», «Ana y Tito», «Ana, Tito y Luna». */
export function joinNames(names) {
  if (names.length <= 1) return names[0] || '';
  return `${names.slice(0, -1).join(', ')} y ${names[names.length - 1]}`;
}

/**
 * The Queen's lines.
 * @param {{winners: number[], totals: number[], target: number, names: string[]}} game
 *   winners: the seats with the lowest total; totals: each seat's total; target: the game's
 *   limit; names: each seat's name.
 * @returns {string[]} one line for the winners, and one for those over the limit who did not win.
 */
export function queenLines({ winners, totals, target, names }) {
  const lines = [];
  const won = winners.map((s) => names[s]);
  const low = totals[winners[0]];
  if (won.length === 1) {
    lines.push(`¡${won[0]}! Te llevaste la mesa con ${points(low)}. Ni mis corazones pudieron contigo.`);
  } else if (won.length > 1) {
    const many = NUMBER_WORDS[won.length] || String(won.length);
    lines.push(`¡${joinNames(won)}! Empataron en lo más bajo con ${points(low)}: la mesa es de ustedes ${many}. Mis respetos.`);
  }
  const over = [0, 1, 2, 3].filter((s) => totals[s] >= target && !winners.includes(s));
  if (over.length === 1) {
    lines.push(`${names[over[0]]}: te pasaste de ${target}. Mis corazones pesan, ¿eh? Se te nota el susto.`);
  } else if (over.length > 1) {
    lines.push(`${joinNames(over.map((s) => names[s]))}: se pasaron de ${target}. Mis corazones pesan, ¿eh? Se les nota el susto.`);
  }
  return lines;
}
