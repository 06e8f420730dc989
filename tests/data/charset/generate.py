#!/usr/bin/env python3
"""Generates the charset test pages (run once; the output bytes are committed).

For each encoding, a short news-style page built from a UTF-8 reference text is encoded with
Python's codec in four variants:
  NAME.none.html   no declaration (tested twice: Content-Type header naming the charset, and
                   no header at all = sniffing)
  NAME.meta.html   <meta charset=LABEL>
  NAME.equiv.html  <meta http-equiv="Content-Type" content="text/html; charset=LABEL">
and NAME.VARIANT.utf8 holds the same page in UTF-8: what rc_charset_to_utf8 must produce.
cases.tsv lists what test_charset checks for each file. SNIFF below records what uchardet 0.0.7
really answers for the undeclared pages (measured, not wished for).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = {
    "zh-hans": ("城市公共交通服务质量提升行动方案发布", [
        "为进一步提升城市公共交通服务水平，满足市民日益增长的出行需求，市交通运输局近日正式发布"
        "《城市公共交通服务质量提升行动方案（2024—2026年）》。方案提出，到2026年底，中心城区公交站点"
        "500米覆盖率达到百分之百，高峰时段平均候车时间缩短至八分钟以内，公交专用道总里程达到三百公里。",
        "方案明确了优化线网结构、提高运营效率、改善乘车环境、推进智慧公交建设等四个方面共二十项重点"
        "任务。其中，市交通运输局将会同各区政府对现有公交线路进行全面梳理，撤并重复线路，增开社区接驳线"
        "和夜间线路，逐步形成干线、支线、微循环线相互衔接的多层次公交网络。",
        "在智慧公交建设方面，方案要求所有公交车辆在明年六月前完成智能调度终端升级，乘客可以通过手机应用"
        "实时查询车辆到站信息。同时，全市将新建和改造智能电子站牌一千二百块，为老年人和视障人士提供语音"
        "播报服务。",
        "市交通运输局有关负责人表示，行动方案实施过程中将广泛听取市民意见，定期公布各项任务的完成情况，"
        "接受社会监督。市民如有意见和建议，可拨打交通服务热线反映。",
    ]),
    # GB18030 proper: characters outside GBK (four-byte sequences) in a personal name and a place.
    "zh-gb18030": ("南汉国史研究新成果发布", [
        "南汉开国皇帝刘䶮的生平事迹一直是五代十国史研究中的难点。近日，省社会科学院历史研究所发布"
        "了一批关于南汉宫廷制度与对外贸易的新研究成果，引起学界广泛关注。",
        "研究人员在整理出土墓志时发现了多个罕见字形，例如“𠮷”字的异体写法，这些字在过去的字符集中"
        "无法表示，如今借助国家标准GB18030已经可以在计算机上准确录入和显示。",
        "课题组负责人介绍，下一步将把全部墓志拓片数字化，建立开放的专题数据库，供国内外学者检索使用。",
    ]),
    "zh-hant": ("臺北市推動老舊公寓增設電梯補助計畫", [
        "臺北市政府都市發展局今日宣布，為協助高齡市民改善居住環境，將擴大辦理老舊公寓增設電梯補助計畫。"
        "凡屋齡超過二十年、樓高五層以下且未設置電梯的集合住宅，經區分所有權人會議同意後，即可提出申請，"
        "每案最高補助新臺幣三百萬元。",
        "都發局表示，本市六十五歲以上人口比例已超過百分之二十，許多長者因住在沒有電梯的公寓高樓層，"
        "上下樓梯十分不便，甚至長期無法外出。增設電梯不僅能提升生活品質，也有助於維持長者的社會參與和"
        "身心健康。",
        "為簡化申請流程，市府將成立專案輔導團隊，協助住戶進行結構安全評估、設計規劃及取得建築執照。"
        "申請期間自下個月一日起至年底止，相關表格可於都市發展局網站下載，或至各區公所索取。",
    ]),
    "ja": ("市立図書館、平日の開館時間を延長へ", [
        "市立中央図書館は来月一日から、平日の開館時間を午後九時まで延長すると発表した。仕事や学校の帰り"
        "に立ち寄りたいという利用者の要望に応えたもので、延長は試行として一年間実施される。",
        "同館によると、昨年度の利用者アンケートでは、回答者の約四割が「平日の夜に利用したい」と答えていた。"
        "延長時間帯には、貸し出しと返却、予約資料の受け取り、閲覧席の利用ができるほか、学習室も開放される。",
        "また、同館は電子書籍の貸し出しサービスも拡充する。新たに約三千タイトルを追加し、スマートフォンや"
        "タブレットから二十四時間いつでも借りられるようにする。館長は「より多くの市民に図書館を身近に"
        "感じてもらいたい」と話している。",
    ]),
    "ko": ("시립도서관, 평일 야간 운영 시간 연장", [
        "시립중앙도서관은 다음 달 1일부터 평일 운영 시간을 오후 10시까지 연장한다고 밝혔다. 퇴근 후나 "
        "방과 후에 도서관을 이용하고 싶다는 시민들의 요청을 반영한 것으로, 연장 운영은 1년간 시범적으로 "
        "실시된다.",
        "도서관 측에 따르면 지난해 이용자 설문조사에서 응답자의 약 40퍼센트가 평일 저녁 시간대 이용을 "
        "희망한다고 답했다. 연장 시간에는 자료 대출과 반납, 예약 자료 수령, 열람실 이용이 가능하며 "
        "디지털 자료실도 함께 개방된다.",
        "또한 도서관은 전자책 대출 서비스를 확대해 약 3천 종의 도서를 새로 추가할 예정이다. 관장은 "
        "\"더 많은 시민이 도서관을 가까이에서 느낄 수 있도록 노력하겠다\"고 말했다.",
    ]),
    "ru": ("В городе откроется новая библиотека", [
        "В следующем месяце в центральном районе города откроется новая публичная библиотека. Здание "
        "площадью более трёх тысяч квадратных метров построено на месте бывшего кинотеатра, который "
        "долгие годы стоял заброшенным.",
        "По словам директора библиотеки, фонд нового учреждения составит около ста двадцати тысяч книг, "
        "журналов и газет. Кроме того, читатели смогут пользоваться электронными ресурсами, компьютерным "
        "залом и залом для детей, где будут проходить занятия и встречи с писателями.",
        "Библиотека будет работать ежедневно, кроме понедельника, с десяти утра до девяти вечера. "
        "Записаться можно будет бесплатно, предъявив паспорт или свидетельство о рождении для детей.",
    ]),
    "bg": ("Общината обновява градския парк", [
        "Общината започва цялостно обновяване на централния градски парк, което ще продължи около осем "
        "месеца. Предвидено е да бъдат подменени алеите и осветлението, да се засадят над двеста нови "
        "дървета и да се изгради модерна детска площадка.",
        "Според кмета проектът е финансиран изцяло със средства от европейските програми и няма да "
        "натовари общинския бюджет. По време на ремонта част от парка ще остане отворена за посетители, "
        "а зоните със строителни работи ще бъдат обезопасени и обозначени.",
        "Жителите могат да изпращат предложения за обзавеждането на парка чрез сайта на общината до края "
        "на месеца. Най-добрите идеи ще бъдат включени в окончателния проект.",
    ]),
    "fr": ("La ville inaugure une nouvelle médiathèque", [
        "La nouvelle médiathèque du centre-ville ouvrira ses portes au public le mois prochain. Installé "
        "dans l’ancienne halle aux grains, le bâtiment rénové offre plus de 3 000 m² d’espaces de lecture, "
        "d’étude et d’exposition.",
        "« Nous voulions un lieu ouvert à tous, où l’on vient autant pour emprunter un livre que pour "
        "travailler ou simplement passer un moment », explique la directrice. Le projet, d’un coût total "
        "de 12 millions d’euros (12 M€), a été financé par la commune, la région et l’État.",
        "La médiathèque sera ouverte du mardi au dimanche, de 10 h à 19 h, et jusqu’à 21 h le jeudi. "
        "L’inscription est gratuite pour les habitants de la commune ; une carte annuelle coûte 15 € pour "
        "les autres usagers — tarif réduit pour les étudiants.",
    ]),
    "pl": ("Miasto otwiera nową bibliotekę", [
        "W przyszłym miesiącu w centrum miasta zostanie otwarta nowa biblioteka publiczna. Budynek o "
        "powierzchni ponad trzech tysięcy metrów kwadratowych powstał w miejscu dawnego kina, które przez "
        "wiele lat stało opuszczone.",
        "Według dyrektorki biblioteki księgozbiór nowej placówki będzie liczył około stu dwudziestu tysięcy "
        "książek, czasopism i gazet. Czytelnicy będą mogli również korzystać z zasobów elektronicznych, "
        "sali komputerowej oraz oddziału dla dzieci, w którym odbywać się będą zajęcia i spotkania z "
        "pisarzami.",
        "Biblioteka będzie czynna codziennie z wyjątkiem poniedziałku, od dziesiątej rano do dziewiątej "
        "wieczorem. Zapisy są bezpłatne; wystarczy okazać dowód osobisty lub legitymację szkolną.",
    ]),
    "el": ("Ο δήμος ανακαινίζει το κεντρικό πάρκο", [
        "Ο δήμος ξεκινά την πλήρη ανακαίνιση του κεντρικού πάρκου της πόλης, η οποία αναμένεται να "
        "διαρκέσει περίπου οκτώ μήνες. Προβλέπεται η αντικατάσταση των διαδρόμων και του φωτισμού, η "
        "φύτευση περισσότερων από διακόσια νέα δέντρα και η κατασκευή μιας σύγχρονης παιδικής χαράς.",
        "Σύμφωνα με τον δήμαρχο, το έργο χρηματοδοτείται εξ ολοκλήρου από ευρωπαϊκά προγράμματα και δεν "
        "θα επιβαρύνει τον δημοτικό προϋπολογισμό. Κατά τη διάρκεια των εργασιών ένα μέρος του πάρκου θα "
        "παραμείνει ανοιχτό για τους επισκέπτες.",
        "Οι κάτοικοι μπορούν να στείλουν τις προτάσεις τους μέσω της ιστοσελίδας του δήμου έως το τέλος "
        "του μήνα.",
    ]),
    "de": ("Stadt eröffnet neue Bibliothek", [
        "Die neue Stadtbibliothek öffnet im kommenden Monat ihre Türen. Das Gebäude mit mehr als "
        "dreitausend Quadratmetern Fläche entstand an der Stelle eines ehemaligen Kinos, das jahrelang "
        "leer stand.",
        "Nach Angaben der Leiterin umfasst der Bestand rund 120.000 Bücher, Zeitschriften und Zeitungen. "
        "Außerdem stehen den Lesern elektronische Medien, ein Computerraum und eine Kinderabteilung zur "
        "Verfügung, in der regelmäßig Lesungen stattfinden – zum Auftakt liest eine bekannte Autorin aus "
        "ihrem neuen Roman „Grüße aus Köln“.",
        "Die Bibliothek ist täglich außer montags von 10 bis 21 Uhr geöffnet. Die Anmeldung ist "
        "kostenlos. 📚",
    ]),
}

# name, python codec, text, html lang, label used in declarations, expected canonical name
ENCODINGS = [
    ("gbk", "gbk", "zh-hans", "zh-CN", "gb2312", "GB18030"),
    ("gb18030", "gb18030", "zh-gb18030", "zh-CN", "GBK", "GB18030"),
    ("big5", "big5", "zh-hant", "zh-TW", "big5", "Big5"),
    ("shift_jis", "shift_jis", "ja", "ja", "Shift_JIS", "Shift_JIS"),
    ("euc-jp", "euc_jp", "ja", "ja", "EUC-JP", "EUC-JP"),
    ("euc-kr", "euc_kr", "ko", "ko", "euc-kr", "EUC-KR"),
    ("windows-1251", "cp1251", "ru", "ru", "windows-1251", "windows-1251"),
    ("koi8-r", "koi8_r", "ru", "ru", "koi8-r", "KOI8-R"),
    ("windows-1252", "cp1252", "fr", "fr", "iso-8859-1", "windows-1252"),
    ("iso-8859-2", "iso8859_2", "pl", "pl", "ISO-8859-2", "ISO-8859-2"),
    ("iso-8859-5", "iso8859_5", "bg", "bg", "iso-8859-5", "ISO-8859-5"),
    ("iso-8859-7", "iso8859_7", "el", "el", "iso-8859-7", "ISO-8859-7"),
    ("utf-8", "utf-8", "de", "de", "utf-8", "UTF-8"),
]

# What uchardet 0.0.7 (via rc_charset_detect, markup stripped) answers for NAME.none.html, and
# whether that decodes the page correctly. Measured; see test_charset.c for the discussion.
SNIFF = {
    "gbk": ("GB18030", True),
    "gb18030": ("GB18030", True),
    "big5": ("Big5", True),
    "shift_jis": ("Shift_JIS", True),
    "euc-jp": ("EUC-JP", True),
    "euc-kr": ("EUC-KR", True),
    "windows-1251": ("windows-1251", True),
    "koi8-r": ("KOI8-R", True),
    "windows-1252": ("windows-1252", True),
    "iso-8859-2": ("ISO-8859-2", True),
    "iso-8859-5": ("ISO-8859-5", True),
    "iso-8859-7": ("ISO-8859-7", True),
    "utf-8": ("UTF-8", True),
}

SNIPPET = """<html><head><title>News</title></head>
<body><p>{text}</p></body></html>
"""

# name, codec, text, what rc_charset_detect says as SOURCE:NAME (measured, uchardet 0.0.7),
# whether the text then comes out right
HARD = [
    # Czech with š/ž: uchardet says ISO-8859-2; the 0x80-0x9F rule turns it into windows-1250.
    ("cs-windows-1250", "cp1250",
     "Praha zahájí rekonstrukci Karlova mostu. Práce potrvají přibližně dva roky a most zůstane "
     "po celou dobu přístupný chodcům. Šťastný žluťoučký kůň úpěl ďábelské ódy.",
     "sniff:windows-1250", True),
    ("cs-iso-8859-2", "iso8859_2",
     "Praha zahájí rekonstrukci Karlova mostu. Práce potrvají přibližně dva roky a most zůstane "
     "po celou dobu přístupný chodcům.", "sniff:ISO-8859-2", True),
    # One accented letter in English: uchardet says ISO-8859-2 (wrong label), but é is 0xE9 in
    # both, so the text is right.
    ("en-one-accent", "cp1252",
     "The café on Main Street will reopen next week after a two-month renovation, the owners "
     "said on Tuesday.", "sniff:ISO-8859-2", True),
    ("es-windows-1252", "cp1252",
     "El ayuntamiento abrirá una nueva biblioteca pública en el centro de la ciudad el próximo "
     "mes. El edificio, de más de tres mil metros cuadrados, ocupa el solar de un antiguo cine.",
     "sniff:windows-1252", True),
    ("tr-windows-1254", "cp1254",
     "Belediye, şehir merkezindeki tarihi çarşının restorasyonuna önümüzdeki ay başlayacağını "
     "açıkladı. Çalışmaların yaklaşık bir yıl sürmesi bekleniyor.", "sniff:windows-1254", True),
    ("he-windows-1255", "cp1255",
     "העירייה הודיעה כי הספרייה העירונית החדשה תיפתח בחודש הבא במרכז העיר, בבניין של בית קולנוע "
     "ישן.", "sniff:windows-1255", True),
    ("ar-windows-1256", "cp1256",
     "أعلنت البلدية أن المكتبة العامة الجديدة ستفتح أبوابها الشهر المقبل في وسط المدينة.",
     "sniff:windows-1256", True),
    ("th-windows-874", "cp874",
     "เทศบาลประกาศว่าห้องสมุดประชาชนแห่งใหม่จะเปิดให้บริการในเดือนหน้าที่ใจกลางเมือง",
     "sniff:windows-874", True),
    ("ru-ibm866", "cp866",
     "В следующем месяце в центральном районе города откроется новая публичная библиотека.",
     "sniff:IBM866", True),
    ("ko-short", "euc_kr", "도서관 연장", "sniff:EUC-KR", True),
    # Failures. uchardet answers "UTF-8" for these windows-1251 Ukrainian sentences and for four
    # GBK characters; the bytes are not UTF-8, so the verdict is discarded and the default
    # (windows-1252) gives mojibake. Four kana or Big5 characters are called windows-1252.
    ("uk-windows-1251", "cp1251",
     "Міська рада повідомила, що нова бібліотека відкриється наступного місяця в центрі міста. "
     "Будівля розташована на місці колишнього кінотеатру.", "default:windows-1252", False),
    ("zh-short-gbk", "gbk", "通知公告", "default:windows-1252", False),
    ("ja-short-sjis", "shift_jis", "お知らせ", "sniff:windows-1252", False),
    ("zh-short-big5", "big5", "最新消息", "sniff:windows-1252", False),
]

TEMPLATE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
{decl}<title>{title}</title>
<link rel="stylesheet" href="/static/site.css">
<script src="/static/site.js"></script>
</head>
<body>
<div class="header"><a href="/">Home</a> | <a href="/news/">News</a> | <a href="/contact/">Contact</a></div>
<h1>{title}</h1>
{paras}
<div class="footer">&copy; 2024 City News</div>
</body>
</html>
"""


def page(text, lang, decl):
    title, paras = TEXTS[text]
    body = "\n".join("<p>%s</p>" % p for p in paras)
    return TEMPLATE.format(lang=lang, decl=decl, title=title, paras=body)


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    rows = []
    for name, codec, text, lang, label, canon in ENCODINGS:
        decls = {
            "none": "",
            "meta": '<meta charset="%s">\n' % label,
            "equiv": '<meta http-equiv="Content-Type" content="text/html; charset=%s">\n' % label,
        }
        for variant, decl in decls.items():
            html = page(text, lang, decl)
            write("%s.%s.html" % (name, variant), html.encode(codec))
            write("%s.%s.utf8" % (name, variant), html.encode("utf-8"))
        rows.append((name + ".none.html", "text/html; charset=" + label, "header", canon,
                     name + ".none.utf8"))
        rows.append((name + ".meta.html", "text/html", "meta", canon, name + ".meta.utf8"))
        rows.append((name + ".equiv.html", "-", "meta", canon, name + ".equiv.utf8"))
        got, right = SNIFF[name]
        rows.append((name + ".none.html", "-", "sniff", got,
                     name + ".none.utf8" if right else "-"))

    # UTF-8 with a BOM, UTF-16 with BOMs: the BOM wins over a conflicting header and meta.
    html = page("de", "de", '<meta charset="windows-1252">\n')
    write("utf-8-bom.html", b"\xef\xbb\xbf" + html.encode("utf-8"))
    write("utf-8-bom.utf8", html.encode("utf-8"))
    rows.append(("utf-8-bom.html", "-", "bom", "UTF-8", "utf-8-bom.utf8"))
    rows.append(("utf-8-bom.html", "text/html; charset=iso-8859-1", "bom", "UTF-8",
                 "utf-8-bom.utf8"))
    html = page("ja", "ja", '<meta charset="utf-16">\n')
    write("utf-16le-bom.html", b"\xff\xfe" + html.encode("utf-16-le"))
    write("utf-16be-bom.html", b"\xfe\xff" + html.encode("utf-16-be"))
    write("utf-16-bom.utf8", html.encode("utf-8"))
    rows.append(("utf-16le-bom.html", "-", "bom", "UTF-16LE", "utf-16-bom.utf8"))
    rows.append(("utf-16le-bom.html", "text/html; charset=utf-8", "bom", "UTF-16LE",
                 "utf-16-bom.utf8"))
    rows.append(("utf-16be-bom.html", "-", "bom", "UTF-16BE", "utf-16-bom.utf8"))
    rows.append(("utf-16be-bom.html", "text/html; charset=\"UTF-16LE\"", "bom", "UTF-16BE",
                 "utf-16-bom.utf8"))

    # Header and meta disagree: the header wins (HTML5: transport layer before the prescan).
    # The page really is windows-1251; its meta lies.
    html = page("ru", "ru", '<meta charset="iso-8859-1">\n')
    write("conflict.html", html.encode("cp1251"))
    write("conflict.utf8", html.encode("utf-8"))
    rows.append(("conflict.html", "text/html;charset=CP1251", "header", "windows-1251",
                 "conflict.utf8"))
    # An unknown header label is ignored and the meta decides (a lie here: mojibake expected,
    # so no text check).
    rows.append(("conflict.html", "text/html; charset=x-klingon", "meta", "windows-1252", "-"))

    # Declared in <meta>, but after 1024 bytes of head: still found within RC_CHARSET_PRESCAN.
    pad = "<!-- " + "padding " * 150 + "-->\n"
    html = page("zh-hans", "zh-CN", pad + '<meta charset="gbk">\n')
    write("late-meta.html", html.encode("gbk"))
    write("late-meta.utf8", html.encode("utf-8"))
    rows.append(("late-meta.html", "-", "meta", "GB18030", "late-meta.utf8"))

    # A meta inside a comment does not count; one after it does.
    html = page("ru", "ru", '<!-- <meta charset="koi8-r"> -->\n<meta charset="windows-1251">\n')
    write("comment-meta.html", html.encode("cp1251"))
    write("comment-meta.utf8", html.encode("utf-8"))
    rows.append(("comment-meta.html", "-", "meta", "windows-1251", "comment-meta.utf8"))

    # A pure-ASCII page with no declaration: windows-1252, the default.
    html = page("de", "en", "").replace(TEXTS["de"][0], "Plain ASCII").encode("ascii", "ignore")
    write("ascii.html", html)
    write("ascii.utf8", html)
    rows.append(("ascii.html", "-", "default", "windows-1252", "ascii.utf8"))

    # Harder sniffing: short texts and close relatives. Each row states what rc_charset_detect
    # answers (measured) and whether the text then comes out right.
    for name, codec, text, expect, right in HARD:
        html = SNIPPET.format(text=text)
        write("sniff-%s.html" % name, html.encode(codec))
        write("sniff-%s.utf8" % name, html.encode("utf-8"))
        source, expect = expect.split(":")
        rows.append(("sniff-%s.html" % name, "-", source, expect,
                     "sniff-%s.utf8" % name if right else "-"))

    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.write("# file\tcontent-type (- = none)\texpected source\texpected name\t"
                "expected UTF-8 (- = not checked)\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
