/**
 * Refusals in languages other than English. Each language gives the ways an
 * answer opens by apologising or regretting, and the first-person "I cannot /
 * I must decline" of an assistant turning a request down. An answer is a
 * refusal when it opens with either and declines within its first two
 * sentences; a summary that reports someone else's apology does not open that way.
 */

interface LanguageRefusal {
  /** An apology or regret at the very start. */
  opener: string;
  /** First-person declining anywhere in the opening sentences. */
  decline: string;
  /** Short answers that say nothing: "nothing to summarise", "please provide the conversation". */
  nonAnswer?: string;
}

/** Up to `n` characters that do not end a sentence, for languages that put words between the verb and its negation. */
const GAP = (n: number) => `(?:[^.!?。！？]{0,${n}}?)`;

const LANGUAGES: Readonly<Record<string, LanguageRefusal>> = {
  es: {
    opener: "lo siento|lo lamento|disculpa|disculpe|disculpas|perdón|perdona|perdone|lamentablemente|desafortunadamente|me temo",
    decline: "no (?:puedo|podré|podría|me es posible|estoy en condiciones|estoy autorizad[oa]|voy a)|(?:debo|tengo que) (?:rechazar|declinar|negarme)|me niego",
    nonAnswer: "no hay (?:nada|ninguna conversación|ningún contenido|contenido|mensajes)(?: que| para)? resumir|por favor,? (?:proporciona|proporcione|comparte|comparta|envía|envíe|pega|pegue)",
  },
  pt: {
    opener: "desculpe|desculpa|desculpas|lamento|sinto muito|infelizmente|perdão|receio",
    decline: "(?:eu )?não (?:posso|consigo|poderei|poderia|sou capaz|vou|estou autorizad[oa])|(?:devo|preciso|tenho de|tenho que) recusar",
    nonAnswer: "não há (?:nada|conversa|conteúdo)(?: para| a)? resumir|por favor,? (?:forneça|envie|compartilhe|cole)",
  },
  fr: {
    opener: "je suis (?:vraiment |sincèrement |profondément )?désolée?|désolée?|je m'excuse|toutes mes excuses|malheureusement|hélas|je regrette|je crains",
    decline: "je ne (?:peux|pourrai|pourrais|suis pas en mesure|vais pas|peux malheureusement)|je (?:dois|me vois contrainte? de) (?:refuser|décliner)|il m'est impossible|je refuse",
    nonAnswer: "il n'y a rien à résumer|aucune conversation (?:n'a été )?fournie|veuillez (?:fournir|partager|coller|envoyer)",
  },
  de: {
    opener: "es tut mir (?:sehr |wirklich |aufrichtig )?leid|tut mir leid|entschuldigung|entschuldige|entschuldigen sie|leider|ich bedaure|bedauerlicherweise|ich fürchte",
    decline: `ich (?:kann|darf|werde|möchte)${GAP(60)} (?:nicht|keine[nmrs]?)\\b|(?:kann|darf|werde) ich${GAP(60)} (?:nicht|keine[nmrs]?)\\b|ich bin (?:leider )?nicht in der lage|(?:ich )?muss${GAP(30)} ablehnen|(?:ist|wäre) (?:es )?mir nicht möglich`,
    nonAnswer: "es gibt nichts zusammenzufassen|keine unterhaltung (?:wurde )?bereitgestellt|bitte (?:geben|stellen|teilen|senden|fügen) sie",
  },
  it: {
    opener: "mi dispiace|spiacente|scusa|scusami|scusate|mi scuso|purtroppo|sfortunatamente|temo",
    decline: "non (?:posso|sono in grado|potrò|potrei|riesco)|devo (?:rifiutare|declinare)",
    nonAnswer: "non c'è nulla da riassumere|non c'è niente da riassumere|per favore,? (?:fornisci|fornisca|condividi|incolla)",
  },
  nl: {
    opener: "het spijt me|sorry|excuses|mijn excuses|helaas|ik vrees",
    decline: `ik (?:kan|mag|zal|wil)${GAP(60)} niet\\b|(?:kan|mag|zal) ik${GAP(60)} niet\\b|ik ben niet in staat|ik moet${GAP(30)} weigeren`,
    nonAnswer: "er is niets om samen te vatten|geef (?:alsjeblieft|a\\.u\\.b\\.) ",
  },
  sv: {
    opener: "jag är ledsen|tyvärr|förlåt|ursäkta|beklagar",
    decline: `jag (?:kan|får|kommer|vill)${GAP(40)} inte\\b|(?:kan|får) jag${GAP(40)} inte\\b|jag måste avböja`,
  },
  da: {
    opener: "beklager|undskyld|desværre|dessverre|jeg er ked af det|jeg er lei for det|unnskyld",
    decline: `jeg (?:kan|må|vil|får)${GAP(40)} ikke\\b|(?:kan|må) jeg${GAP(40)} ikke\\b|jeg må (?:afslå|avslå)`,
  },
  pl: {
    opener: "przepraszam|przykro mi|niestety|obawiam się",
    decline: "nie (?:mogę|jestem w stanie|będę|potrafię|mogę niestety)|muszę odmówić",
  },
  cs: {
    opener: "omlouvám se|je mi líto|bohužel|promiň|promiňte",
    decline: "nemohu|nemůžu|nejsem schopn[ýáa]|musím odmítnout",
  },
  ru: {
    opener: "извините|простите|прошу прощения|к сожалению|мне жаль|сожалею|боюсь",
    decline: "(?:я )?не (?:могу|смогу|буду|в состоянии|имею возможности)|вынужден(?:а)? отказа|я отказываюсь",
    nonAnswer: "нечего (?:резюмировать|обобщать|суммировать)|пожалуйста,? (?:предоставьте|пришлите|вставьте)",
  },
  uk: {
    opener: "вибачте|пробачте|на жаль|мені шкода|перепрошую",
    decline: "(?:я )?не (?:можу|зможу|буду|в змозі)|змушен(?:ий|а) відмовити",
  },
  tr: {
    opener: "üzgünüm|özür dilerim|maalesef|ne yazık ki|kusura bakmayın",
    decline: "\\S{2,}(?:amam|emem|amıyorum|emiyorum|amayacağım|emeyeceğim)(?![\\p{L}])|mümkün değil|reddetmek zorundayım",
  },
  el: {
    opener: "λυπάμαι|συγγνώμη|δυστυχώς|ζητώ συγγνώμη",
    decline: "δεν (?:μπορώ|είμαι σε θέση|θα μπορέσω)|πρέπει να αρνηθώ",
  },
  ro: {
    opener: "îmi pare rău|imi pare rau|scuze|din păcate|regret",
    decline: "nu (?:pot|sunt în măsură|voi putea)(?![\\p{L}])",
  },
  hu: {
    opener: "sajnálom|elnézést|sajnos|bocsánat",
    decline: "nem (?:tudok|tudom|áll módomban|fogok)",
  },
  fi: {
    opener: "olen pahoillani|valitettavasti|anteeksi|pahoittelen",
    decline: "en (?:voi|pysty|valitettavasti voi)(?![\\p{L}])",
  },
  vi: {
    opener: "xin lỗi|rất tiếc|tiếc là|thật không may",
    decline: "(?:tôi )?(?:không thể|không được phép|xin từ chối|phải từ chối)",
  },
  id: {
    opener: "maaf|mohon maaf|sayangnya|saya minta maaf",
    decline: "(?:saya |aku )?(?:tidak (?:dapat|bisa|boleh|mampu)|tak (?:dapat|bisa)|harus menolak)",
  },
  ar: {
    opener: "عذرا|عذرًا|عذراً|آسف|اسف|أعتذر|اعتذر|للأسف|مع الأسف|عفوا",
    decline: "لا (?:أستطيع|استطيع|يمكنني|أقدر)|لن (?:أتمكن|أستطيع)|(?:يجب|علي) أن أرفض|أرفض",
  },
  he: {
    opener: "מצטער|מצטערת|סליחה|לצערי|אני מתנצל|אני מתנצלת",
    decline: "(?:אני )?(?:לא יכול|לא יכולה|איני יכול|אינני יכול|לא אוכל)",
  },
  fa: {
    opener: "متأسفم|متاسفم|ببخشید|پوزش|متأسفانه|متاسفانه",
    decline: "نمی‌توانم|نمیتوانم|نمی توانم|قادر نیستم",
  },
  hi: {
    opener: "माफ़ कीजिए|माफ कीजिए|माफ़ करें|माफ करें|क्षमा करें|क्षमा कीजिए|मुझे खेद है|खेद है|दुर्भाग्य से",
    decline: "नहीं (?:कर )?(?:सकता|सकती|सकते|पाऊंगा|पाऊँगा|पाऊंगी)|असमर्थ",
  },
  th: {
    opener: "ขออภัย|ขอโทษ|เสียใจ|น่าเสียดาย",
    decline: "ไม่สามารถ|ไม่อาจ|ช่วยไม่ได้|ปฏิเสธ",
  },
  zh: {
    opener: "很抱歉|非常抱歉|抱歉|对不起|對不起|不好意思|很遗憾|很遺憾|遗憾|遺憾|恐怕",
    decline: "(?:我|我们|我們)[^。！？]{0,12}?(?:无法|無法|不能|不可以|没办法|沒辦法|没有办法|不会|不會|拒绝|拒絕)|无法(?:协助|帮助|幫助|提供|完成|总结|總結|满足)|無法(?:協助|幫助|提供|完成|總結)",
    nonAnswer: "没有(?:可以|需要)?(?:总结|摘要)的(?:内容|对话)|請提供|请提供",
  },
  ja: {
    opener: "申し訳(?:ありません|ございません|ない)|すみません|ごめんなさい|残念ながら|恐れ入りますが|恐縮ですが",
    decline: "できません|できかねます|いたしかねます|致しかねます|お手伝いできません|対応できません|お断り",
    nonAnswer: "要約する(?:内容|もの)が(?:ありません|ない)|提供してください",
  },
  ko: {
    opener: "죄송합니다|죄송하지만|죄송해요|미안합니다|미안하지만|유감스럽게도|안타깝게도",
    decline: "수 (?:없습니다|없어요|없어|없다|없네요)|수가 없|거절(?:합니다|해야)|못 (?:합니다|해요|하겠습니다|드립니다)",
  },
};

const ALL = Object.values(LANGUAGES);
const join = (pick: (l: LanguageRefusal) => string | undefined) =>
  ALL.map(pick)
    .filter((s): s is string => Boolean(s))
    .map((s) => `(?:${s})`)
    .join("|");

/** The start of an answer that apologises or declines, in any listed language. */
const OPENER = new RegExp(`^(?:${join((l) => l.opener)}|${join((l) => l.decline)})`, "u");
const DECLINE = new RegExp(join((l) => l.decline), "u");
const NON_ANSWER = new RegExp(join((l) => l.nonAnswer), "u");

/** Whether the (normalised, lower-case) opening sentences refuse in a language other than English. */
export function refusesInOtherLanguage(head: string): boolean {
  return OPENER.test(head) && DECLINE.test(head);
}

/** Whether a short normalised answer only says there is nothing to summarise or asks for input. */
export function isNonAnswerInOtherLanguage(plain: string): boolean {
  return NON_ANSWER.test(plain);
}
