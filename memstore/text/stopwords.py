"""Very frequent function words of the languages memstore's users write in.

Recall still matches these words; ranking only counts them for little (see
:mod:`memstore.text.ranking`). The index's own document frequencies already discount
words that are frequent in the archive; this list adds the words a question is made of but a
conversation rarely holds ("when did she ...", "¿qué hizo ella ...?"), whose document
frequency is too low to tell them from content words.

The lists are short on purpose: English, Spanish, German, Italian, French and Portuguese
function words, and the standalone function words of Chinese, Japanese and Korean (the index
does not segment CJK text, so only a word that stands alone between separators is one
token). Query words are compared after :func:`~memstore.text.tokens.fold`; the lists are
written as it folds them (lowercase, no diacritics: a test checks).
"""

from __future__ import annotations

ENGLISH = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing don down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just let me more most my myself no nor not now of off on once only or other our
ours ourselves out over own same she should so some such t than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
s d ll m re ve didn doesn isn wasn
"""
SPANISH = """
a al algo como con contra cual cuales cuando de del desde donde durante e el ella ellas ellos
en entre era eran es esa ese eso esta estaba estas este esto estos fue fueron ha habia han
hasta hay la las le les lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra otro
para pero poco por porque que quien quienes se sea ser si sin sobre son su sus tambien te
tiene tu tus un una uno unos y ya yo
"""
GERMAN = """
aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die dich dir
doch du durch ein eine einem einen einer eines er es fur hat hatte hier ich ihm ihn ihr ihre
im in ist ja kann mein meine mich mir mit nach nicht noch nur ob oder ohne sein seine sich
sie sind so uber um und uns unter vom von vor war waren warum was weil welche wenn wer wie
wir wird wo zu zum zur
"""
ITALIAN = """
a ad al alla alle anche che chi ci come con cosa da dal dalla dei del della delle di dove e
ed era gli ha hai ho i il in io la le lei li lo loro lui ma mi mia mio ne nei nel nella noi
non o per perche piu quale quando quello questa questo se si sono su sua suo ti tu tra un
una uno vi voi
"""
FRENCH = """
a au aux avec ce ces cette comme dans de des du elle elles en est et etait eu il ils je la
le les leur lui ma mais me mes moi mon ne nos notre nous on ou par pas pour qu quand que qui
quoi sa se ses son sont sur ta te tes toi ton tu un une vos votre vous y c j l n s
"""
PORTUGUESE = """
a ao aos as com como da das de dela dele do dos e ela elas ele eles em entre era essa esse
esta este eu foi foram isso isto ja lhe mais mas me meu minha muito na nao nas nem no nos o
onde os ou para pela pelo por porque quando que quem se sem seu sua tambem te tem um uma voce
"""
CHINESE = """
的 了 是 在 我 你 他 她 它 我们 你们 他们 这 那 和 与 也 就 都 吗 呢 吧 什么 怎么 为什么 谁 哪里
不 有 没有
"""
JAPANESE = """
の に は を が と で も へ や か ね よ から まで より です ます この その あの 私 何 いつ どこ
"""
KOREAN = """
그리고 그러나 하지만 그런데 그래서 또는 및 이 그 저 것 수 등 더 왜 뭐 무엇 어떻게 언제 어디
누구 나 너 우리
"""

LANGUAGES = (ENGLISH, SPANISH, GERMAN, ITALIAN, FRENCH, PORTUGUESE, CHINESE, JAPANESE, KOREAN)
"""Each language's list, as written above."""
WORDS = tuple(word for words in LANGUAGES for word in words.split())
