/**
 * Words dropped from natural-language queries (unquoted words only, and only
 * when another word remains): English function words and the question words
 * an agent puts around what it actually looks for ("what did Alice say about
 * the deploy?" searches alice, say, deploy). Quote a word to keep it.
 * The list is documented in the README's search section; keep them in step.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // question words
  "what", "when", "where", "which", "who", "whom", "whose", "why", "how",
  // articles, determiners, pronouns
  "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every",
  "i", "me", "my", "mine", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "hers",
  "it", "its", "they", "them", "their", "theirs", "myself", "yourself", "itself", "themselves",
  // auxiliaries
  "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done",
  "have", "has", "had", "having", "can", "could", "will", "would", "shall", "should", "may", "might", "must",
  // prepositions, conjunctions, particles
  "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "into", "onto", "over", "under",
  "as", "than", "then", "so", "and", "or", "but", "if", "not", "no", "nor",
  "there", "here", "ever", "also", "just", "very", "too", "again", "s", "t",
  // request phrasing
  "please", "tell", "know", "kind", "sort", "thing", "things",
]);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
