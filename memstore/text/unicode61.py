"""SQLite's ``unicode61`` tokenizer, as a table: the role of every code point
(``w`` a token character, ``m`` a token character the fold removes, ``.`` a separator), printed
by ``python -m memstore.store.unicode61`` from SQLite 3.40.1 and checked against the linked
SQLite by the test suite's walk over all of Unicode. Its classes follow Unicode 6.1, whatever
Python's ``unicodedata`` says: a code point unassigned in 6.1 (most emoji) is a token character.
"""

from __future__ import annotations

import bisect
import functools

RUNS = (
    "0. 30w 3A. 41w 5B. 61w 7B. AAw AB. B2w B4. B5w B6. B9w BB. BCw BF. C0w D7. D8w F7. F8w 2"
    "C2. 2C6w 2D2. 2E0w 2E5. 2ECw 2ED. 2EEw 2EF. 300m 305. 306m 30D. 30Fm 310. 311m 312. 31Bm"
    " 31C. 323m 329. 32Dm 32F. 330m 332. 370w 375. 376w 37E. 37Fw 384. 386w 387. 388w 3F6. 3F"
    "7w 482. 48Aw 55A. 560w 589. 58Bw 58F. 590w 591. 5C8w 5F3. 5F5w 600. 605w 606. 61Cw 61E. "
    "620w 64B. 660w 66A. 66Ew 670. 671w 6D4. 6D5w 6D6. 6E5w 6E7. 6EEw 6FD. 6FFw 700. 70Ew 70F"
    ". 710w 711. 712w 730. 74Bw 7A6. 7B1w 7EB. 7F4w 7F6. 7FAw 816. 81Aw 81B. 824w 825. 828w 8"
    "29. 82Ew 830. 83Fw 859. 85Cw 85E. 85Fw 8E4. 8FFw 900. 904w 93A. 93Dw 93E. 950w 951. 958w"
    " 962. 966w 970. 971w 981. 984w 9BC. 9BDw 9BE. 9C5w 9C7. 9C9w 9CB. 9CEw 9D7. 9D8w 9E2. 9E"
    "4w 9F2. 9F4w 9FA. 9FCw A01. A04w A3C. A3Dw A3E. A43w A47. A49w A4B. A4Ew A51. A52w A70. "
    "A72w A75. A76w A81. A84w ABC. ABDw ABE. AC6w AC7. ACAw ACB. ACEw AE2. AE4w AF0. AF2w B01"
    ". B04w B3C. B3Dw B3E. B45w B47. B49w B4B. B4Ew B56. B58w B62. B64w B70. B71w B82. B83w B"
    "BE. BC3w BC6. BC9w BCA. BCEw BD7. BD8w BF3. BFBw C01. C04w C3E. C45w C46. C49w C4A. C4Ew"
    " C55. C57w C62. C64w C7F. C80w C82. C84w CBC. CBDw CBE. CC5w CC6. CC9w CCA. CCEw CD5. CD"
    "7w CE2. CE4w D02. D04w D3E. D45w D46. D49w D4A. D4Ew D57. D58w D62. D64w D79. D7Aw D82. "
    "D84w DCA. DCBw DCF. DD5w DD6. DD7w DD8. DE0w DF2. DF5w E31. E32w E34. E3Bw E3F. E40w E47"
    ". E50w E5A. E5Cw EB1. EB2w EB4. EBAw EBB. EBDw EC8. ECEw F01. F20w F34. F40w F71. F88w F"
    "8D. F98w F99. FBDw FBE. FCDw FCE. FDBw 102B. 103Fw 104A. 1050w 1056. 105Aw 105E. 1061w 1"
    "062. 1065w 1067. 106Ew 1071. 1075w 1082. 108Ew 108F. 1090w 109A. 10A0w 10FB. 10FCw 135D."
    " 1369w 1390. 139Aw 1400. 1401w 166D. 166Fw 1680. 1681w 169B. 169Dw 16EB. 16EEw 1712. 171"
    "5w 1732. 1737w 1752. 1754w 1772. 1774w 17B4. 17D7w 17D8. 17DCw 17DD. 17DEw 1800. 180Fw 1"
    "8A9. 18AAw 1920. 192Cw 1930. 193Cw 1940. 1941w 1944. 1946w 19B0. 19C1w 19C8. 19CAw 19DE."
    " 1A00w 1A17. 1A1Cw 1A1E. 1A20w 1A55. 1A5Fw 1A60. 1A7Dw 1A7F. 1A80w 1AA0. 1AA7w 1AA8. 1AA"
    "Ew 1B00. 1B05w 1B34. 1B45w 1B5A. 1B7Dw 1B80. 1B83w 1BA1. 1BAEw 1BE6. 1BF4w 1BFC. 1C00w 1"
    "C24. 1C38w 1C3B. 1C40w 1C7E. 1C80w 1CC0. 1CC8w 1CD0. 1CE9w 1CED. 1CEEw 1CF2. 1CF5w 1DC0."
    " 1DE7w 1DFC. 1E00w 1FBD. 1FBEw 1FBF. 1FC2w 1FCD. 1FD0w 1FDD. 1FE0w 1FED. 1FF0w 1FFD. 1FF"
    "Fw 2000. 2065w 206A. 2070w 207A. 207Fw 208A. 208Fw 20A0. 20BAw 20D0. 20F1w 2100. 2102w 2"
    "103. 2107w 2108. 210Aw 2114. 2115w 2116. 2119w 211E. 2124w 2125. 2126w 2127. 2128w 2129."
    " 212Aw 212E. 212Fw 213A. 213Cw 2140. 2145w 214A. 214Ew 214F. 2150w 2190. 23F4w 2400. 242"
    "7w 2440. 244Bw 249C. 24EAw 2500. 2700w 2701. 2776w 2794. 2B4Dw 2B50. 2B5Aw 2CE5. 2CEBw 2"
    "CEF. 2CF2w 2CF9. 2CFDw 2CFE. 2D00w 2D70. 2D71w 2D7F. 2D80w 2DE0. 2E2Fw 2E30. 2E3Cw 2E80."
    " 2E9Aw 2E9B. 2EF4w 2F00. 2FD6w 2FF0. 2FFCw 3000. 3005w 3008. 3021w 302A. 3031w 3036. 303"
    "8w 303D. 3040w 3099. 309Dw 30A0. 30A1w 30FB. 30FCw 3190. 3192w 3196. 31A0w 31C0. 31E4w 3"
    "200. 321Fw 322A. 3248w 3250. 3251w 3260. 3280w 328A. 32B1w 32C0. 32FFw 3300. 3400w 4DC0."
    " 4E00w A490. A4C7w A4FE. A500w A60D. A610w A66F. A67Fw A69F. A6A0w A6F0. A6F8w A700. A71"
    "7w A720. A722w A789. A78Bw A802. A803w A806. A807w A80B. A80Cw A823. A82Cw A836. A83Aw A"
    "874. A878w A880. A882w A8B4. A8C5w A8CE. A8D0w A8E0. A8F2w A8F8. A8FBw A926. A930w A947."
    " A954w A95F. A960w A980. A984w A9B3. A9CEw A9DE. A9E0w AA29. AA37w AA43. AA44w AA4C. AA4"
    "Ew AA5C. AA60w AA77. AA7Aw AA7B. AA7Cw AAB0. AAB1w AAB2. AAB5w AAB7. AAB9w AABE. AAC0w A"
    "AC1. AAC2w AADE. AAE0w AAEB. AAF2w AAF5. AAF7w ABE3. ABEEw D800. E000w FB1E. FB1Fw FB29."
    " FB2Aw FBB2. FBC2w FD3E. FD40w FDFC. FDFEw FE00. FE1Aw FE20. FE27w FE30. FE53w FE54. FE6"
    "7w FE68. FE6Cw FEFF. FF00w FF01. FF10w FF1A. FF21w FF3B. FF41w FF5B. FF66w FFE0. FFE7w F"
    "FE8. FFEFw FFF9. 10000w 10100. 10103w 10137. 10140w 10179. 1018Aw 10190. 1019Cw 101D0. 1"
    "01FEw 1039F. 103A0w 103D0. 103D1w 10857. 10858w 1091F. 10920w 1093F. 10940w 10A01. 10A04"
    "w 10A05. 10A07w 10A0C. 10A10w 10A38. 10A3Bw 10A3F. 10A40w 10A50. 10A59w 10A7F. 10A80w 10"
    "B39. 10B40w 11000. 11003w 11038. 1104Ew 11080. 11083w 110B0. 110C2w 11100. 11103w 11127."
    " 11135w 11140. 11144w 11180. 11183w 111B3. 111C1w 111C5. 111C9w 116AB. 116B8w 12470. 124"
    "74w 16F51. 16F7Fw 16F8F. 16F93w 1D000. 1D0F6w 1D100. 1D127w 1D129. 1D1DEw 1D200. 1D246w "
    "1D300. 1D357w 1D6C1. 1D6C2w 1D6DB. 1D6DCw 1D6FB. 1D6FCw 1D715. 1D716w 1D735. 1D736w 1D74"
    "F. 1D750w 1D76F. 1D770w 1D789. 1D78Aw 1D7A9. 1D7AAw 1D7C3. 1D7C4w 1EEF0. 1EEF2w 1F000. 1"
    "F02Cw 1F030. 1F094w 1F0A0. 1F0AFw 1F0B1. 1F0BFw 1F0C1. 1F0D0w 1F0D1. 1F0E0w 1F110. 1F12F"
    "w 1F130. 1F16Cw 1F170. 1F19Bw 1F1E6. 1F203w 1F210. 1F23Bw 1F240. 1F249w 1F250. 1F252w 1F"
    "300. 1F321w 1F330. 1F336w 1F337. 1F37Dw 1F380. 1F394w 1F3A0. 1F3C5w 1F3C6. 1F3CBw 1F3E0."
    " 1F3F1w 1F400. 1F43Fw 1F440. 1F441w 1F442. 1F4F8w 1F4F9. 1F4FDw 1F500. 1F53Ew 1F540. 1F5"
    "44w 1F550. 1F568w 1F5FB. 1F641w 1F645. 1F650w 1F680. 1F6C6w 1F700. 1F774w E0001. E0002w "
    "E0020. E0080w E0100. E01F0w"
)
"""Each run of one role as hexadecimal first code point and role, space-separated."""


@functools.cache
def table() -> tuple[list[int], str]:
    """The first code point of each run, and the runs' roles (one character each)."""
    pairs = "".join(RUNS).split()
    return [int(pair[:-1], 16) for pair in pairs], "".join(pair[-1] for pair in pairs)


def role(code: int) -> str:
    """The role of code point ``code``: ``w``, ``m`` or ``.``."""
    starts, roles = table()
    return roles[bisect.bisect_right(starts, code) - 1]


def roles() -> str:
    """One role per code point, from U+0000 to U+10FFFF."""
    starts, kinds = table()
    ends = [*starts[1:], 0x110000]
    runs = zip(starts, ends, kinds, strict=True)
    return "".join(kind * (end - start) for start, end, kind in runs)
