"""Words the extractor knows: section headings, dates, languages, places, cues.

Hand-curated for the locales the project serves first (en, de, fr, es, it, nl, pl); add
a locale by adding its words here. Everything is compared case-folded.
"""

# ruff: noqa: RUF001 (CV text has typographic dashes, quotes and colons: the rules must read them)

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

# Section headings -> section kind. A heading line is short and is one of these (after
# stripping numbering, trailing ":" and surrounding symbols).
HEADINGS: dict[str, tuple[str, ...]] = {
    "experience": (
        "experience", "work experience", "working experience", "professional background", "professional experience",
        "employment", "employment history",
        "work history", "career history", "career", "relevant experience", "berufserfahrung", "erfahrung",
        "beruflicher werdegang", "werdegang", "praxiserfahrung", "berufspraxis", "expérience",
        "expériences", "expérience professionnelle", "expériences professionnelles", "parcours professionnel",
        "parcours", "experiencia", "experiencia profesional", "experiencia laboral", "esperienza",
        "esperienze", "esperienza professionale", "esperienze professionali", "esperienza lavorativa",
        "werkervaring", "ervaring", "loopbaan", "doświadczenie", "doświadczenie zawodowe", "historia zatrudnienia",
        # layout-42: a student's jobs under a heading of their own (mbruyere's "Student Job")
        "student job", "student jobs", "job étudiant", "jobs étudiants", "studentenjob", "studentenjobs",
        "nebenjob", "nebenjobs", "side jobs", "part-time jobs", "part-time work",
        # layout-6: komacv's bare "Work"; Portuguese
        "work", "experiência", "experiência profissional", "experiências", "histórico profissional",
        # layout-12: academic CVs' positions
        "appointments", "professional appointments", "academic appointments", "academic positions", "positions",
        "positions held", "professional positions", "research positions", "employment experience",
        "consulting engagements", "consulting experience", "consulting",  # h44
        # h49: earlier roles under a heading of their own ("Other experience" stays a non-role
        # section: the corpus's volunteering and side projects)
        "other work experience", "other work experiences", "previous experience", "prior experience",
        "earlier experience", "previous employment", "previous commercial experience", "commercial experience",
        "work experiences", "weitere berufserfahrung", "autres expériences professionnelles",
        "otras experiencias laborales", "outras experiências profissionais",
        # h53: the Polish of "commercial experience" and "previous commercial experience"
        # (Polish sets the adjective after the noun: no leading modifier reads it)
        "doświadczenie komercyjne", "wcześniejsze doświadczenie komercyjne",
        # layout-48: plurals of held-out v20's headings (development since): "EXPERIÊNCIAS
        # PROFISSIONAIS:" and "Berufliche Erfahrungen" read as no heading, every role lost
        "experiências profissionais", "experiencias profesionales", "experiencias laborales",
        "berufliche erfahrung", "berufliche erfahrungen",
        # layout-56: Portugal's "Percurso Profissional" (v22's wingosto: its schools read as jobs
        # under no heading); Spain's and Brazil's "trayectoria/trajetória profissional"
        "percurso profissional", "trajetória profissional", "trayectoria profesional",
        # layout-57: "Experiencia laboral" put word by word into English (probredo-en, Canva),
        # and "Job experience"
        "laboral experience", "labor experience", "job experience", "jobs experience",
        # h50: Chinese, Japanese and Korean headings (a Chinese LaTeX CV's sections read as "top")
        "工作经历", "工作经验", "实习经历", "工作履历", "職歴", "職務経歴", "경력", "경력 사항",
        # layout-38: a sidebar template's one-word Chinese headings (dingpeng-zh's 经历 over its posts)
        "经历",
        # layout-30: Turkish, Russian and Czech (development CVs of held-out v10 read their
        # roles' headings as roles and their degrees as jobs)
        "deneyim", "deneyimler", "iş deneyimi", "iş deneyimleri", "iş deneyimlerim", "tecrübe", "tecrübeler",
        "iş tecrübesi", "profesyonel deneyim", "çalışma deneyimi", "опыт работы", "опыт",
        "профессиональный опыт", "трудовая деятельность", "pracovní zkušenosti", "praxe",
        # layout-33: "Research experience" in the languages that do not put "research" first
        # (a German CV's "Forschungserfahrung" read as an "other" section, its posts lost)
        "forschungserfahrung", "expérience de recherche", "expériences de recherche",
        "experiencia en investigación", "experiencia investigadora", "experiência em pesquisa",
        "experiência de pesquisa", "esperienza di ricerca", "esperienze di ricerca",
        # layout-40: a student's internships under their own heading (v15's bingosun: its
        # posts read as no section's)
        "internship experience", "internship experiences", "internships", "internship",
        # layout-41: Chinese CVs' usual headings, simplified and traditional (a heading the
        # lexicon lacked left every line under it in the section before)
        "实习经验", "职业经历", "工作經歷", "工作經驗", "實習經歷", "實習經驗", "經歷",
        "工作及实习经历", "实习及工作经历",
        # layout-65: Danish, Norwegian and Swedish (v25's jbjerrekaer, a LinkedIn export in Danish:
        # "Erfaring" was a heading already, its schools and top skills were not)
        "erfaringer", "arbejdserfaring", "arbeidserfaring", "erfarenhet", "erfarenheter", "arbetslivserfarenhet",
    ),
    "education": (
        "education", "qualifications", "academic background", "education and training", "ausbildung",
        "education background", "educational background",  # layout-40
        "bildungsweg", "studium", "schulbildung", "akademischer werdegang", "formation", "formations",
        "diplômes", "études", "formación", "formación académica", "educación", "estudios", "istruzione",
        "formazione", "istruzione e formazione", "titoli di studio", "opleiding", "opleidingen",
        "wykształcenie", "edukacja", "formação", "formação acadêmica", "formação académica", "educação",
        "bildung", "akademische bildung", "schulische bildung",  # layout-12
        "akademische laufbahn",  # h44
        "informações acadêmicas", "academic information", "informação acadêmica",  # h52
        "教育经历", "教育背景", "学历", "学歴", "학력", "학력 사항",  # h50
        "教育",  # layout-38
        "教育經歷", "學歷", "学习经历", "學習經歷", "教育經驗",  # layout-41
        "eğitim", "eğitim bilgileri", "öğrenim", "образование", "vzdělání",  # layout-30
        "vzdělávání",  # layout-48: Czech "education" (v20's dsoltys: its schools read as jobs)
        "percurso académico", "percurso acadêmico", "percurso escolar",  # layout-56
        "trayectoria académica", "trajetória acadêmica",
        "uddannelse", "uddannelser", "utdanning", "utdannelse", "utbildning",  # layout-65
    ),
    "skills": (
        "skills", "key skills", "technical skills", "core skills", "core competencies", "competencies",
        "skills and tools", "tools", "technologies", "tech stack", "expertise", "it skills", "kenntnisse",
        "fähigkeiten", "it-kenntnisse", "edv-kenntnisse", "kompetenzen", "fachkenntnisse", "compétences",
        "compétences techniques", "savoir-faire", "habilidades", "competencias", "conocimientos",
        "aptitudes", "competenze", "competenze tecniche", "competenze digitali", "capacità", "vaardigheden",
        "competenties", "kennis", "umiejętności", "kompetencje", "umiejętności techniczne",
        # TeX classes' and Europass's own headings for the same list
        "专业技能", "技能", "技术栈", "技能清单", "スキル", "기술", "기술 스택",  # h50
        "个人技能", "技术技能", "职业技能", "技能特长", "技术能力", "it 技能", "專業技能", "技術棧", "技術能力",
        "技能特長",  # layout-41
        "computer skills", "computer knowledge", "computer knowledges", "digital skills", "digital competences",
        "digital competence", "software skills", "programming skills", "software",
        # layout-6: Spanish and Portuguese lists ("Tecnologías", "Conocimientos en computación")
        "tecnologías", "tecnologias", "herramientas", "conocimientos informáticos", "conocimientos técnicos",
        "conocimientos en computación", "ferramentas", "competências", "competências técnicas", "conhecimentos",
        "habilidades técnicas", "programming languages", "frameworks", "frameworks and libraries",
        "edv",  # h44: German "IT"
        # h55: the stack named as such, and expertise in several languages
        "technology stack", "technical stack", "technologie-stack", "tech-stack", "stack technique",
        "stack technologique", "stack tecnológico", "stack tecnológica", "areas of expertise", "toolbox",
        "kernkompetenzen",
        # layout-30: Turkish, Russian and Czech
        "yetenekler", "beceriler", "yetkinlikler", "teknik beceriler", "teknik yetenekler", "навыки",
        "ключевые навыки", "технические навыки", "технологии", "dovednosti",
        # layout-63: "Hard Skills" (a Brazilian CV's, v24's hoseiro: "HardSkills" read one edit
        # away), and LinkedIn's export's "Top Skills" in its other languages
        "hard skills", "aptitudes principales", "top-kenntnisse", "competenze principali",
        "belangrijkste vaardigheden",
        # layout-65: Danish, Norwegian and Swedish, and LinkedIn's export's top skills in them
        "kompetencer", "kompetanse", "kompetenser", "færdigheder", "ferdigheter", "färdigheter",
        "mest repræsenterede kompetencer", "toppferdigheter", "främsta kunskaper",
    ),
    "languages": (
        "languages", "language skills", "sprachen", "sprachkenntnisse", "langues", "compétences linguistiques",
        "idiomas", "lenguas", "lingue", "competenze linguistiche", "conoscenze linguistiche", "talen",
        "talenkennis", "języki", "języki obce", "znajomość języków",
        "diller", "yabancı diller", "языки", "иностранные языки", "jazyky",  # layout-30
        "línguas", "linguas",  # stop 50 (Portuguese)
        "语言", "语言能力", "语言技能", "外语", "語言", "語言能力", "外語",  # layout-41
        "sprog", "språk", "sprogkundskaber", "språkkunskaper",  # layout-65
    ),
    "references": ("references", "referees", "referenzen", "références", "referencias", "referenze", "referenties",
                   "referencje", "referanslar"),
    "summary": (
        "profile", "summary", "professional summary", "personal statement", "objective", "about me", "about",
        "profil", "über mich", "kurzprofil", "à propos", "perfil", "sobre mí", "perfil profesional", "profilo",
        "chi sono", "profiel", "over mij", "o mnie", "podsumowanie",
        # h50: objectives and summaries in Portuguese, Spanish and French CVs
        "objetivo", "objetivos", "objetivo profissional", "objetivo profesional", "resumo", "resumo profissional",
        "sobre mim", "perfil profissional", "objectif", "objectif professionnel", "resumen", "resumen profesional",
        "hakkımda", "özet", "о себе", "обо мне", "o mně",  # layout-30
        "extracto", "riepilogo", "zusammenfassung", "samenvatting",  # layout-63: LinkedIn's export's, in four languages
        "sammendrag", "sammanfattning",  # layout-65: Norwegian and Swedish (Danish "Resumé" is a CV's title word too)
        "求职意向", "求职目标", "职业目标", "求職意向",  # layout-41
    ),
    "contact": (
        "contact", "contact details", "contact information", "personal details", "personal information",
        "kontakt", "persönliche daten", "kontaktdaten", "coordonnées", "contacto", "datos personales",
        "contatti", "informazioni personali", "dati personali", "persoonlijke gegevens", "contactgegevens",
        "dane osobowe", "dane kontaktowe", "个人信息", "联系方式", "連絡先", "연락처",
        # h50: the contact block's other headings in development CVs and their languages
        "persönliche infos", "persönliche angaben", "kontaktinformationen", "personal info", "contact info",
        "informations personnelles", "informações pessoais", "dados pessoais", "contato", "contatos",
        "informações de contato", "informacje kontaktowe", "kontakty",
        "iletişim", "iletişim bilgileri", "kişisel bilgiler", "контакты", "контактная информация",  # layout-30
        "基本信息", "个人资料", "基本資料", "個人資料", "個人信息", "聯絡方式", "联系信息",  # layout-41
        "contactar",  # layout-63: LinkedIn's export in Spanish (v24's jangarita)
    ),
    "other": (
        "projects", "certifications", "certificates", "publications", "interests", "hobbies", "awards",
        "volunteering", "courses", "training", "projekte", "zertifikate", "interessen", "hobbys", "projets",
        "certifications et formations", "centres d'intérêt", "loisirs", "proyectos", "certificaciones",
        "intereses", "progetti", "certificazioni", "interessi", "projecten", "certificaten", "hobby's",
        "projekty", "certyfikaty", "zainteresowania",
        "publikationen", "veröffentlichungen", "auszeichnungen", "talks", "presentations",  # layout-12
        # layout-6: sections after the roles that ended nowhere before (their lines were read as roles)
        "honors", "honours", "honors and awards", "achievements", "other interesting information", "distinciones",
        "otras distinciones", "cursos", "publicaciones", "premios", "projetos", "certificações", "publicações",
        "extracurricular activity", "extracurricular activities", "activities", "leadership and activities",
        "other experience", "volunteer experience", "leadership experience", "leadership",
        "reconocimientos", "logros", "distinctions", "prix", "récompenses", "auszeichnungen und preise",  # h44
        "certificados", "certificados e cursos", "cursos e certificados", "cursos complementares",
        "additional information", "informações adicionais", "zusätzliche informationen",  # h52
        "个人项目", "项目经验", "项目经历", "自我评价", "获奖情况", "荣誉奖项", "其他",  # h50
        "项目", "プロジェクト", "프로젝트",  # layout-38
        # layout-41: the rest of a Chinese CV's usual sections (a student's campus roles are
        # no work history, as "extracurricular activities" are not)
        "項目經驗", "項目經歷", "專案經歷", "專案經驗", "專案", "項目", "开源项目", "开源贡献", "個人專案",
        "个人荣誉", "荣誉", "荣誉证书", "奖项", "获奖经历", "获奖", "獲獎", "獎項", "榮譽", "獲獎經歷",
        "证书", "资格证书", "證照", "證書", "兴趣爱好", "爱好", "興趣", "興趣愛好", "杂项", "其它", "其他信息",
        "论文", "发表论文", "学术成果", "論文", "著作", "出版物", "校园经历", "社团经历", "社会实践",
        "课外活动", "在校经历", "校園經歷", "個人簡介", "个人简介", "个人总结", "自我介绍", "自我介紹",
        "关于我", "關於我",
        # layout-30: Turkish, Russian and Czech
        "projeler", "sertifikalar", "hobiler", "ilgi alanları", "başarılar", "проекты", "сертификаты",
        "курсы", "достижения", "certifikáty", "zájmy",
        # layout-51: a Brazilian CV's courses and side projects after its roles (v21's zehguilherme)
        "atividades complementares", "qualificações e atividades complementares", "atividades extracurriculares",
        "actividades complementarias", "actividades extracurriculares", "activités complémentaires",
        # layout-53: projects under a heading that says experience (v21's dtang: "Projects Experience")
        "project experience", "projects experience", "project experiences", "projects experiences",
        # layout-72: a Google Docs CV's "BOOTCAMPS & SPECIALIZED TRAINING" after its roles
        # (v28's mmamdoh: its bootcamps were read as roles; "PROJECT" and "BOOTCAMP" alone are a
        # wrapped line's end and a course's first word in probredo's and paul-freeman's)
        "bootcamps", "specialized training", "specialised training", "trainings",
    ),
}  # fmt: skip

# Lines that title the document instead of naming the person.
DOCUMENT_TITLES = frozenset(
    {
        "curriculum vitae", "cv", "resume", "résumé", "lebenslauf", "curriculum", "currículum", "currículum vitae",
        "curriculum vitae europass", "europass", "życiorys", "c.v.", "profil", "profile", "bewerbung",
        "tabellarischer lebenslauf", "mon cv", "hoja de vida", "resumé", "resume/cv", "cv/resume",
        "简历", "个人简历", "履歴書", "職務経歴書", "履歷表", "履歷", "이력서",
        "özgeçmiş", "резюме", "životopis",  # layout-30
    }
)  # fmt: skip
# Title words that may share the name's line ("Curriculum Vitae - Anna Schmidt",
# "ANNA SCHMIDT RESUME", "Lebenslauf von Anna Schmidt"): stripped from either end.
TITLE_WORDS = tuple(
    sorted(
        {"curriculum vitae", "curriculum vitæ", "currículum vitae", "curriculum", "currículum", "lebenslauf",
         "tabellarischer lebenslauf", "résumé", "resumé", "resume", "cv", "c.v.", "życiorys", "hoja de vida"},
        key=len,
        reverse=True,
    )
)  # fmt: skip
TITLE_CONNECTORS = ("of", "von", "de", "di", "van", "-")
# CJK lines near the top that are not names (headings and common titles of 2-4 characters).
CJK_NOT_NAMES = frozenset(
    {"个人信息", "联系方式", "教育背景", "工作经历", "工作经验", "专业技能", "技能", "项目经验", "自我评价",
     "工程师", "经理", "基本情報", "学歴", "職歴", "資格", "連絡先", "氏名", "姓名", "名前", "이름", "경력", "학력",
     "기술", "연락처"}
)  # fmt: skip

# Template sample values: a CV still carrying them was not filled in (or is a template).
# "John Doe" alone may be a real person; it counts only beside a sample e-mail or phone.
PLACEHOLDER_NAMES = frozenset(
    {"your name", "your name here", "your full name", "first last", "firstname lastname", "first name last name",
     "name surname", "name lastname", "vorname nachname", "max mustermann", "erika mustermann", "prénom nom",
     "nombre apellido", "nombre apellidos", "nome cognome", "voornaam achternaam", "imię nazwisko"}
)  # fmt: skip
PLACEHOLDER_NAMES_WITH_EVIDENCE = frozenset({"john doe", "jane doe", "john smith", "jane smith"})
PLACEHOLDER_EMAIL_LOCALS = frozenset(
    {"yourname", "your.name", "your_name", "youremail", "your.email", "firstname.lastname", "first.last",
     "name.surname", "firstname", "john.doe", "jane.doe", "johndoe", "janedoe", "max.mustermann", "email",
     "name", "you", "vorname.nachname", "prenom.nom", "nombre.apellido", "nome.cognome"}
)  # fmt: skip
# Reserved for documentation (RFC 2606/6761) and template domains, in several languages.
PLACEHOLDER_EMAIL_DOMAINS = frozenset(
    {"example.com", "example.org", "example.net", "example.de", "example.co.uk", "domain.com", "yourdomain.com",
     "email.com", "mydomain.com", "yourwebsite.com", "website.com", "company.com", "yourcompany.com",
     "beispiel.de", "exemple.fr", "exemple.com", "ejemplo.com", "ejemplo.es", "esempio.it", "esempio.com",
     "voorbeeld.nl", "przyklad.pl"}
)  # fmt: skip
PLACEHOLDER_EMAIL_TLDS = ("example", "test", "invalid", "localhost")

# Words that make a line a job title rather than a name.
JOB_WORDS = frozenset(
    {
        "engineer", "developer", "manager", "scientist", "analyst", "consultant", "designer", "architect",
        "lead", "director", "specialist", "administrator", "accountant", "officer", "assistant", "intern",
        "head", "senior", "junior", "principal", "staff", "student", "graduate", "coordinator", "technician",
        "ingenieur", "ingenieurin", "entwickler", "entwicklerin", "berater", "beraterin", "leiter", "leiterin",
        "projektmanagerin", "projektmanager", "ingénieur", "ingénieure", "développeur", "développeuse", "chef",
        "cheffe", "chargé", "chargée", "consultante", "ingeniero", "ingeniera", "desarrollador", "desarrolladora",
        "programador", "analista", "jefe", "sviluppatore", "sviluppatrice", "ingegnere", "programista",
        "inżynier", "kierownik", "ontwikkelaar", "adviseur", "beheerder", "software", "data", "devops", "full",
        "stack", "backend", "frontend", "qa", "cloud", "product", "project", "team", "machine", "learning",
        "reliability", "business", "site", "systems",
    }
)  # fmt: skip

# Particles that stay lower case inside names.
NAME_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "des", "la", "le", "y", "e", "zu", "ten",
     "ter", "het", "'t", "dos", "das", "ní", "nic", "mac", "bin", "al"}
)  # fmt: skip
# Words of a phrase that no name is made of (particles aside: "de", "van", "y", "zu", "das"
# are in NAME_PARTICLES). An all-caps line re-cased looks like a name word by word
# ("ENSEIGNANT EN MATHÉMATIQUES" on a scan); one of these words says it is a phrase.
NAME_STOPWORDS = frozenset(
    {"en", "in", "of", "for", "and", "the", "und", "et", "pour", "avec", "with", "mit", "für", "im", "bei", "par",
     "para", "con", "och", "og", "oraz", "i", "w", "na", "z", "dla", "em", "at", "on", "to",
     # h47: an address's street word ("Rua Tereza Valverde" above the phone on a scan), a
     # label or heading word ("Home Address", "Languages Known"), a possessive ("Meine
     # Forschungsthemen"), a Portuguese or Spanish job noun ("Cientista de Datos") - never a name
     "rua", "avenida", "av.", "calle", "carrer", "street", "road", "avenue", "straße", "strasse", "str.",
     "platz", "allee", "gasse", "boulevard", "viale", "piazza", "ulica", "ul.", "praça", "plaza", "travessa",
     "alameda", "address", "adresse", "dirección", "endereço", "languages", "known", "meine", "mein",
     "cientista", "científico", "científica", "engenheiro", "engenheira",
     "desenvolvedor", "desenvolvedora", "pesquisador", "pesquisadora", "investigador", "investigadora",
     # stop 50: a section's or a label's words ("Employment Situation", "Desenvolvimento de
     # Sistemas", "Mystery Client") - never a name
     "employment", "situation", "desenvolvimento", "sistemas", "client", "mystery"}
)  # fmt: skip
NAME_PREFIXES = (
    "dr.", "dr", "prof.", "prof", "dipl.-ing.", "dipl.-ing", "dipl.-kfm.", "mr", "mr.", "mrs", "mrs.", "ms",
    "ms.", "mag.", "ing.", "mgr", "mgr.", "inż.", "lic.", "m.sc.", "b.sc.",
)  # fmt: skip
NAME_LABELS = ("name", "full name", "nome", "naam", "nom", "nombre", "nom et prénom", "imię i nazwisko",
               "vor- und nachname", "nome e cognome", "nombre y apellidos", "姓名", "氏名", "名前", "이름",
               "фио", "ф.и.о.", "имя")  # fmt: skip
# Icon fonts' glyph names as a text layer writes them beside what the icon marks (Font
# Awesome in AltaCV, moderncv and others: "December 2023 - Present Calendar", "Vancouver, BC
# Map-marker", "GRADUATION-CAP Ph.D."); hyphenated, so no word of a CV's own (stop 50).
ICON_GLYPH_NAMES = frozenset(
    {"map-marker", "map-marker-alt", "map-pin", "graduation-cap", "calendar-alt", "calendar-o", "calendar-check",
     "mobile-alt", "mobile-android-alt", "phone-alt", "phone-square", "envelope-o", "envelope-open",
     "envelope-square", "external-link", "external-link-alt", "globe-americas", "globe-europe", "linkedin-in",
     "linkedin-square", "github-alt", "github-square", "user-graduate", "user-tie", "building-o", "clock-o"}
)  # fmt: skip
ADDRESS_LABELS = (
    "address", "location", "home", "based in", "residence", "adresse", "anschrift", "wohnort", "wohnhaft",
    "adresse postale", "domicile", "dirección", "domicilio", "ubicación", "residencia", "indirizzo",
    "residenza", "adres", "woonplaats", "locatie", "miejsce zamieszkania", "lokalizacja", "city", "ort",
)  # fmt: skip

# Cue words: a line holding one is about someone else, not the candidate.
AGENCY_CUES = (
    "submitted by", "presented by", "on behalf of", "recruitment", "recruiting", "recruiter", "agency",
    "your contact", "vorgestellt von", "präsentiert von", "ansprechpartner", "personalberatung",
    "personaldienstleist", "présenté par", "cabinet de recrutement", "presentado por", "presentato da",
    "aangeboden door", "przedstawiony przez",
)  # fmt: skip
REFEREE_CUES = ("referee", "reference:", "references:", "referenz", "référence", "referencia", "referenza",
                "referentie", "available on request")  # fmt: skip

PRESENT_WORDS = (
    "present", "current", "currently", "now", "today", "to date", "ongoing", "heute", "bis heute",
    "jetzt", "aktuell", "dato", "aujourd'hui", "aujourd’hui", "présent", "à ce jour", "ce jour", "actualidad",
    "la actualidad", "actual", "presente", "hoy", "oggi", "ad oggi", "in corso", "heden", "nu", "obecnie",
    "teraz", "nadal", "obecny", "至今", "现在", "現在", "현재",
    # layout-6: abbreviations ("Nov'22 - Cur.", "May 2011 - Act."), Portuguese
    "cur.", "act.", "atual", "atualmente", "o momento",
    "ahora", "actualmente", "hoje", "en cours", "en poste",  # h44
    "emprego atual", "trabalho atual",  # layout-48: "Início em Novembro de 2022 - Emprego Atual."
    # layout-30: Russian, Turkish, Czech ("Август 2022 — Настоящее время")
    "настоящее время", "по настоящее время", "наст. время", "сейчас", "н.в.", "günümüz", "halen",
    "devam ediyor", "současnost", "dosud", "doposud", "nyní",
    # layout-34: Czech and Slovak "today" ("01/2023 — DNES"), Slovak "present"
    "dnes", "súčasnosť", "súčasnost", "doteraz",
)  # fmt: skip
# What may stand between two dates of one range (stripped, case-folded).
RANGE_SEPARATORS = frozenset(
    {"-", "–", "—", "−", "‒", "·", "•", "|", "/", "to", "bis", "à", "au", "a", "al", "tot", "do", "until", "till",
     "through", "->", "→", "–>", "-->", "hasta", "até", "fino a", "jusqu'à", "jusqu’à", "t/m", "til", "till date", "--",
     "---", "~", "thru", "– ", "bis zum", "tot en met", "exp.", "exp", "expected", "—-", "-—", "–-", "-–",
     "～", "〜", "至", "から",  # Japanese and Chinese ranges: the fullwidth tilde, the wave dash, "to"
     ">", "›", "»", "=>"}  # a Canva CV's "03/2023 > 07/2023" (layout-42)
)  # fmt: skip
# The separators a line may break after, the range's end on the next line ("Sept. 2018 to" /
# "present"): dashes and the words that mean "to" - not "a", "do", "exp." (words of their
# own at a line's end).
SEPARATORS_AT_LINE_END = ("-", "–", "—", "to", "till", "until", "bis", "à", "au", "hasta", "até", "al")
SINCE_WORDS = ("since", "seit", "depuis", "desde", "dal", "dall'", "sinds", "od", "from")

# Month names and abbreviations (all locales share one table; none collide across months).
MONTHS: dict[str, int] = {}
for number, names in enumerate(
    (
        "jan january janv janvier januar jänner ene enero gen gennaio januari sty styczeń stycznia janeiro",
        "feb february févr fevr février februar febrero febbraio februari lut luty lutego fev fevereiro",
        "mar march mars märz maerz marzo maart mrt marca marzec março marts",
        "apr april avr avril abr abril aprile kwi kwiecień kwietnia",
        "may mai mayo mag maggio mei maj maja maio",
        "jun june juin juni junio giu giugno cze czerwiec czerwca junho",
        "jul july juil juillet juli julio lug luglio lip lipiec lipca julho",
        "aug august août aout ago agosto augustus sie sierpień sierpnia",
        "sep sept september septembre septiembre set settembre wrz wrzesień września setembro",
        "oct october okt oktober octobre octubre ott ottobre paź październik października outubro out",
        "nov november novembre noviembre lis listopad listopada novembro",
        "dec december dez dezember déc décembre dic diciembre dicembre gru grudzień grudnia dezembro desember",
    ),
    start=1,
):
    for name in names.split():
        MONTHS[name] = number
# layout-30: Russian (nominative and genitive, "Август 2022"), Turkish (also as an
# upper-case line folds it: "MAYIS" -> "mayis") and Czech; layout-48: Turkish's
# three-letter forms ("Eyl 2023 - Haz 2024", v20's babacan-tr: its one role undated)
for number, names in enumerate(
    (
        "январь января янв ocak oca leden ledna",
        "февраль февраля фев şubat subat şub únor února",
        "март марта mart březen března",
        "апрель апреля апр nisan nis duben dubna",
        "май мая mayıs mayis květen května",
        "июнь июня июн haziran haz červen června",
        "июль июля июл temmuz tem červenec července",
        "август августа авг ağustos agustos ağu agu srpen srpna augusti",
        "сентябрь сентября сен сент eylül eylul eyl září",
        "октябрь октября окт ekim eki říjen října",
        "ноябрь ноября ноя нояб kasım kasim kas listopadu",
        "декабрь декабря дек aralık aralik ara prosinec prosince",
    ),
    start=1,
):
    for name in names.split():
        assert MONTHS.get(name, number) == number, name  # no name of two months
        MONTHS[name] = number

# Human languages: every spelling (several locales) -> English name.
LANGUAGES: dict[str, str] = {}
for english, spellings in {
    "English": "english englisch anglais inglés ingles inglês inglese engels angielski",
    "German": "german deutsch allemand alemán aleman alemão tedesco duits niemiecki",
    "French": "french französisch franzoesisch français francais francés frances francês francese frans francuski",
    "Spanish": "spanish spanisch espagnol español espanol espanhol castellano spagnolo spaans hiszpański hiszpanski",
    "Italian": "italian italienisch italien italiano italiaans włoski wloski",
    "Dutch": "dutch niederländisch néerlandais neerlandés olandese nederlands niderlandzki flemish",
    "Polish": "polish polnisch polonais polaco polacco pools polski",
    "Portuguese": "portuguese portugiesisch portugais portugués português portoghese portugees portugalski",
    "Turkish": "turkish türkisch turc turco turks turecki",
    "Russian": "russian russisch russe ruso russo russisch rosyjski",
    "Arabic": "arabic arabisch arabe árabe arabo arabisch arabski",
    "Chinese": "chinese mandarin chinesisch chinois chino chinês cinese chinees chiński",
    "Japanese": "japanese japanisch japonais japonés japonês giapponese japans japoński",
    "Swedish": "swedish schwedisch suédois sueco svedese zweeds szwedzki",
    "Danish": "danish dänisch danois danés danese deens duński",
    "Norwegian": "norwegian norwegisch norvégien noruego norvegese noors norweski",
    "Finnish": "finnish finnisch finnois finlandés finlandese fins fiński",
    "Greek": "greek griechisch grec griego greco grieks grecki",
    "Czech": "czech tschechisch tchèque checo ceco tsjechisch czeski",
    "Hungarian": "hungarian ungarisch hongrois húngaro ungherese hongaars węgierski",
    "Romanian": "romanian rumänisch roumain rumano rumeno roemeens rumuński",
    "Ukrainian": "ukrainian ukrainisch ukrainien ucraniano ucraino oekraïens ukraiński",
    "Hindi": "hindi",
    "Catalan": "catalan katalanisch catalán catalano catalaans kataloński",
    "Welsh": "welsh walisisch gallois galés gallese welsh walijski",
    "Irish": "irish gaeilge irisch irlandais irlandés irlandese iers irlandzki",
}.items():
    for spelling in spellings.split():
        LANGUAGES[spelling] = english
LANGUAGE_LABELS = (
    "languages", "language", "sprachen", "langues", "idiomas", "lingue", "lingua madre", "altre lingue", "talen",
    "języki", "mother tongue", "muttersprache", "langue maternelle",
)  # fmt: skip

# Places -> ISO region, for the phone number region hint. Countries (several spellings),
# then larger cities. US states count as "US" after a comma ("Austin, TX").
COUNTRIES: dict[str, str] = {}
for region, spellings in {
    "GB": "united kingdom|uk|u.k.|great britain|england|scotland|wales|northern ireland|großbritannien|royaume-uni",
    "IE": "ireland|éire|irland|irlande|irlanda",
    "US": "usa|u.s.a.|united states|united states of america|vereinigte staaten|états-unis|estados unidos|eua|ee.uu.",
    "DE": "germany|deutschland|allemagne|alemania|germania|duitsland|niemcy",
    "AT": "austria|österreich|autriche",
    "CH": "switzerland|schweiz|suisse|svizzera|suiza",
    "FR": "france|frankreich|francia|frankrijk|francja",
    "BE": "belgium|belgien|belgique|belgië",
    "ES": "spain|españa|espana|spanien|espagne|spagna|spanje|hiszpania",
    "IT": "italy|italia|italien|italie|italië|włochy",
    "NL": "netherlands|the netherlands|nederland|niederlande|pays-bas|países bajos|paesi bassi|holland",
    "PL": "poland|polska|polen|pologne|polonia",
    "PT": "portugal",
    "SE": "sweden|sverige|schweden|suède",
    "DK": "denmark|danmark|dänemark",
    "CA": "canada|kanada",
    "AU": "australia|australien",
    "IN": "india|indien",
    # layout-6: the development half's real CVs from Mexico, Korea (places of their roles)
    "MX": "mexico|méxico|mexique|mexiko|méjico",
    "KR": "south korea|korea|republic of korea|s.korea|s. korea|corée du sud|südkorea",
    "BR": "brazil|brasil|brésil|brasilien",
    "HU": "hungary|magyarország|ungarn|hongrie|hungría|węgry",
    "CZ": "czech republic|czechia|česko|tschechien|république tchèque",
    "GR": "greece|ελλάδα|griechenland|grèce|grecia",
    "RO": "romania|românia|rumänien|roumanie",
    "NO": "norway|norge|norwegen|norvège",
    "FI": "finland|suomi|finnland|finlande",
    "LU": "luxembourg|luxemburg",
}.items():
    for spelling in spellings.split("|"):
        COUNTRIES[spelling] = region
# Every other country, in the languages the corpus's CVs are written in, from the names
# phonenumbers ships for its geocoder ("Haifa, Israel", "Moscow, Russia", "Costa Rica";
# h47), vendored as countries.csv (scripts/country_names.py): importing phonenumbers'
# geodata package would load every geocoding table into each worker. Names that are also
# a US state, a given name or a common word are left out: a "Georgia" in a US address, a
# "Jordan" on a name line.
COUNTRIES_FILE = Path(__file__).with_name("countries.csv")
_NOT_COUNTRIES = frozenset({"georgia", "jordan", "chad", "jersey", "guernsey", "niger", "guinea"})


def _data_rows(path: Path) -> csv.DictReader[str]:
    """The rows of one of the extractor's CSV data files (skills.csv, countries.csv): its
    "#" comment lines (version, source, licence) are not rows."""
    with path.open(encoding="utf-8") as fh:
        return csv.DictReader([line for line in fh if line.strip() and not line.startswith("#")])


def _country_names() -> dict[str, str]:
    out: dict[str, str] = {}
    for row in _data_rows(COUNTRIES_FILE):
        key = row["name"].casefold()
        # "中国", "日本", "美国": a CJK country name is two characters (layout-41)
        if (3 <= len(key) <= 40 or (len(key) == 2 and all(ch >= "\u2e80" for ch in key))) and key not in _NOT_COUNTRIES:
            out.setdefault(key, row["region"])
    return out


for _spelling, _region in _country_names().items():
    COUNTRIES.setdefault(_spelling, _region)
US_STATES = frozenset(
    [
        "AL",
        "AK",
        "AZ",
        "AR",
        "CA",
        "CO",
        "CT",
        "DE",
        "DC",
        "FL",
        "GA",
        "HI",
        "ID",
        "IL",
        "IN",
        "IA",
        "KS",
        "KY",
        "LA",
        "ME",
        "MD",
        "MA",
        "MI",
        "MN",
        "MS",
        "MO",
        "MT",
        "NE",
        "NV",
        "NH",
        "NJ",
        "NM",
        "NY",
        "NC",
        "ND",
        "OH",
        "OK",
        "OR",
        "PA",
        "RI",
        "SC",
        "SD",
        "TN",
        "TX",
        "UT",
        "VT",
        "VA",
        "WA",
        "WV",
        "WI",
        "WY",
    ]
)
# Where a place is "City, State" written with the state's name ("Mesa, Arizona"), or with
# another federation's state code ("São Paulo, SP", "Toronto, ON", "Perth, WA"): places
# only (h44) - a phone's region comes from US_STATES and countries, not from these.
US_STATE_NAMES = frozenset(
    ["alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida",
     "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine",
     "maryland", "massachusetts", "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska",
     "nevada", "ohio", "oklahoma", "oregon", "pennsylvania", "tennessee", "texas", "utah", "vermont", "virginia",
     "washington", "wisconsin", "wyoming", "new hampshire", "new jersey", "new mexico", "new york",
     "north carolina", "north dakota", "rhode island", "south carolina", "south dakota", "west virginia",
     "district of columbia"]
)  # fmt: skip
# Words a post's title is made of beyond JOB_WORDS (interns, owners, trades, the languages
# the corpus holds): a line with one is read as a post (extraction/_history), and a part
# with one is no town ("Técnico de Infraestrutura - DF", _layout).
POST_WORDS = frozenset(
    {"intern", "internship", "praktikant", "praktikantin", "werkstudent", "werkstudentin",
     "stagiaire", "becario", "tirocinante", "stagiair", "stażysta", "owner", "founder", "co-founder", "ceo", "cto",
     "cfo", "vp", "president", "partner", "teacher", "nurse", "researcher", "professor", "lecturer", "editor",
     "writer", "sales", "marketing", "representative", "associate", "advisor", "programmer", "tester",
     "operator", "supervisor", "executive", "trainee", "apprentice", "freelance", "freelancer", "volunteer", "agent",
     "geschäftsführer", "geschäftsführerin", "mitarbeiter", "mitarbeiterin", "referent", "referentin",
     "sachbearbeiter", "sachbearbeiterin", "responsable", "directeur", "directrice", "gerente", "director",
     "direttore", "responsabile", "medewerker", "specjalista", "kierownik", "dyrektor", "architekt",
     "tech", "engineering", "sre", "ux", "ui", "scrum", "master", "support", "devops",
     # layout-6: Spanish, Portuguese and French titles of the development half's real CVs' kind
     "profesor", "profesora", "professeur", "docente", "ayudante", "asistente",
     "investigador", "investigadora", "becaria", "consultor", "consultora", "técnico", "técnica", "fundador",
     "fundadora", "coordinador", "coordinadora", "desenvolvedor", "desenvolvedora", "engenheiro", "engenheira",
     "estagiário", "estagiária", "cofounder", "lehrer", "lehrerin", "dozent", "dozentin", "employee",
     # h50: Portuguese and Spanish trades of the development half's Brazilian CVs
     "vendedor", "vendedora", "promotor", "promotora", "auxiliar", "assistente", "atendente", "recepcionista",
     "operador", "operadora", "administrador", "administradora", "teilhaber", "teilhaberin",
     # layout-30: Turkish, Russian and Czech titles, and interns' words in more languages
     "staj", "stajyer", "geliştirici", "mühendis", "mühendisi", "uzman", "uzmanı", "yönetici", "yazılımcı",
     "разработчик", "инженер", "стажер", "стажёр", "аналитик", "руководитель", "менеджер", "тестировщик",
     "программист", "ментор", "vývojář", "programátor", "inženýr", "analytik", "konzultant", "stážista",
     "aprendiz", "pasante", "practicante", "stagista", "praktykant", "konsultant",
     # layout-33: a Spanish lead, also as typed without its accents ("Lider Tecnico")
     "líder", "lider", "tecnico", "tecnica",
     # layout-39: development batch v16's Portuguese posts ("Especialista em Pesquisa e
     # Desenvolvimento", "Aux Administrativo"); French "Enseignant ... en Mathématiques" is
     # better read without its word (pas-cv's nine layouts: "en" then parts post and subject)
     "especialista", "aux", "pesquisador", "pesquisadora", "coordenador", "coordenadora", "supervisora",
     # layout-40: more Russian posts (v15's rnady: "SEO-специалист")
     "специалист", "директор", "консультант", "дизайнер", "преподаватель", "ассистент", "администратор",
     "архитектор", "эксперт", "фрилансер", "основатель", "сооснователь",
     # layout-48: service and public posts written with no other title word ("Starbucks,
     # Denver, CO — Barista", held-out v20's lfriedman, development since: read the wrong
     # way round)
     "barista", "cashier", "waiter", "waitress", "bartender", "guard", "deputy", "clerk", "receptionist",
     "driver", "baker", "tutor", "instructor", "trainer", "mechanic", "electrician", "caregiver", "educator",
     "paralegal", "secretary", "librarian", "pharmacist", "therapist", "counselor", "counsellor", "recruiter",
     "auditor", "attorney", "lawyer", "paramedic", "firefighter", "cashière", "serveur", "serveuse",
     # layout-57: the same trades in Spanish and French ("MOOVECARS - CONDUCTOR", "4PLAY SRL -
     # ADMINISTRATIVO": v21's vdegennaro, Canva, read the wrong way round)
     "conductor", "conductora", "repartidor", "repartidora", "administrativo", "administrativa", "camarero",
     "camarera", "cajero", "cajera", "dependiente", "dependienta", "mesero", "mesera", "chófer", "chofer",
     "caissier", "caissière", "livreur", "livreuse", "chauffeur",
     # layout-65: a Brazilian architect's post (v25's dholiveira: "Arquiteto de Software Sênior"
     # over its house was read the wrong way round), and Scandinavian posts
     "arquiteto", "arquiteta", "arquitecto", "arquitecta", "programadora", "instruktør", "udvikler",
     "utvikler", "utvecklare", "ingeniør", "ingenjör", "konsulent",
     "fellow"}  # "Postdoctoral Fellow", "Research Fellow": an academic post
)  # fmt: skip
STATE_CODES = frozenset(
    # Brazil's 27 federative units, Canada's provinces and territories, Australia's states.
    ["AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE", "PI",
     "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO", "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON",
     "QC", "SK", "YT", "NSW", "VIC", "QLD", "SA", "TAS", "ACT"]
)  # fmt: skip
CITIES: dict[str, str] = {}
for region, names in {
    "GB": "london|manchester|birmingham|bristol|leeds|liverpool|edinburgh|glasgow|cardiff|belfast|sheffield|"
    "newcastle|nottingham|cambridge|oxford|brighton|reading|southampton|leicester|aberdeen|swansea|bath|york",
    "IE": "dublin|cork|galway|limerick",
    "US": "new york|san francisco|seattle|austin|chicago|boston|denver|los angeles|atlanta|portland|miami|"
    "san diego|washington|philadelphia|houston|dallas|phoenix",
    "DE": "berlin|münchen|munich|hamburg|köln|cologne|frankfurt|frankfurt am main|stuttgart|düsseldorf|leipzig|"
    "dresden|hannover|nürnberg|bremen|essen|dortmund|bonn|mannheim|karlsruhe|heidelberg|freiburg|aachen",
    "AT": "wien|vienna|graz|linz|salzburg|innsbruck",
    "CH": "zürich|zurich|genf|genève|geneva|basel|bern|lausanne",
    "FR": "paris|lyon|marseille|toulouse|nice|nantes|bordeaux|lille|strasbourg|montpellier|rennes|grenoble",
    "BE": "bruxelles|brussels|brussel|antwerpen|anvers|gent|liège",
    "ES": "madrid|barcelona|valencia|sevilla|seville|bilbao|málaga|malaga|zaragoza|granada|alicante|palma",
    "IT": "milano|milan|roma|rome|torino|turin|napoli|naples|bologna|firenze|florence|genova|venezia|venice|"
    "verona|padova|bari|palermo",
    "NL": "amsterdam|utrecht|rotterdam|den haag|the hague|eindhoven|groningen|leiden|delft|haarlem|tilburg|"
    "nijmegen|arnhem|breda",
    "PL": "warszawa|warsaw|kraków|krakow|cracow|wrocław|wroclaw|gdańsk|gdansk|poznań|poznan|łódź|lodz|katowice|"
    "lublin|szczecin",
    "PT": "lisboa|lisbon|porto",
}.items():
    for city in names.split("|"):
        CITIES[city] = region
# The world's larger cities (h49; ~1,900 of 300,000 people or more, GeoNames data, CC BY 4.0),
# vendored as cities.csv (scripts/city_names.py): "São Paulo", "Bengaluru", "Toronto". The
# hand list above wins where both name a city.
CITIES_FILE = Path(__file__).with_name("cities.csv")
for _row in _data_rows(CITIES_FILE):
    CITIES.setdefault(_row["name"].casefold(), _row["region"])
EMAIL_TLD_REGION = {
    "uk": "GB", "ie": "IE", "de": "DE", "at": "AT", "ch": "CH", "fr": "FR", "be": "BE", "es": "ES", "it": "IT",
    "nl": "NL", "pl": "PL", "pt": "PT", "se": "SE", "dk": "DK",
}  # fmt: skip

# The document's language, for the phone region when no place or +code settles it: a
# few frequent words and CV headings per language, and the one region a national number
# in that language most likely belongs to. English is left out on purpose (GB, US, IE,
# AU, IN... write the same words), as is any language spoken in several countries alike.
LANGUAGE_WORDS = {
    "de": "und|der|die|das|mit|für|bei|von|seit|bis|berufserfahrung|ausbildung|kenntnisse|sprachen|lebenslauf|"
    "studium|heute|geboren|straße|str.|telefon|handy|anschrift",
    "fr": "et|le|la|les|des|du|avec|pour|chez|depuis|expérience|expériences|formation|compétences|langues|"
    "aujourd'hui|rue|né|née|téléphone|tél.|portable",
    "es": "el|los|las|del|con|para|en|desde|experiencia|formación|educación|habilidades|idiomas|actualidad|"
    "calle|teléfono|móvil|nacimiento",
    "it": "il|lo|gli|della|delle|con|per|presso|dal|esperienza|esperienze|formazione|istruzione|competenze|"
    "lingue|oggi|via|telefono|cellulare|nato|nata",
    "nl": "en|het|van|een|bij|met|voor|sinds|werkervaring|opleiding|vaardigheden|talen|heden|straat|telefoon|"
    "mobiel|geboren",
    "pl": "oraz|na|dla|od|doświadczenie|wykształcenie|umiejętności|języki|obecnie|ul.|telefon|tel.|urodzenia",
    "pt": "os|as|do|da|dos|com|para|desde|experiência|formação|competências|idiomas|atualmente|rua|telemóvel",
}
LANGUAGE_REGION = {
    "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "nl": "NL", "pl": "PL", "pt": "PT",
    "zh": "CN", "ja": "JP", "ko": "KR",  # by script (h49)
}  # fmt: skip
# The other countries a language is written in, tried after every stronger signal: a
# national number valid in exactly one of them is read there ("(47) 9 8829-1690" on a
# Portuguese CV is Brazil's, h47); valid in several, it stays as written.
LANGUAGE_OTHER_REGIONS = {
    "pt": ("BR",), "es": ("MX", "AR", "CO", "CL", "PE"), "fr": ("BE", "CH", "CA"), "de": ("AT", "CH"),
    "it": ("CH",), "nl": ("BE",), "zh": ("TW", "HK", "SG"),
}  # fmt: skip
LANGUAGE_OF_WORD: dict[str, list[str]] = {}
for language, words in LANGUAGE_WORDS.items():
    for word in words.split("|"):
        LANGUAGE_OF_WORD.setdefault(word, []).append(language)
# English words: a mostly English document has no national language to go by.
ENGLISH_WORDS = frozenset(
    {"and", "the", "of", "with", "for", "at", "in", "to", "from", "experience", "education", "skills", "languages",
     "present", "street", "phone", "mobile"}
)  # fmt: skip

# Labels before a phone number (case-folded, without the trailing colon/period).
PHONE_LABELS = frozenset(
    {
        "tel", "tel.", "tél", "tél.", "tele", "telephone", "téléphone", "telefon", "telefono", "teléfono",
        "telefone", "telefoon", "phone", "ph", "ph.", "p", "t", "m", "mob", "mob.", "mobile", "mobil",
        "mobiel", "móvil", "movil", "cell", "cell.", "cellphone", "cellulare", "cel", "cel.", "celular",
        "handy", "portable", "port.", "gsm", "fon", "tfno", "tfno.", "tlf", "tlf.", "kom.", "komórka",
        "telemóvel", "電話", "电话", "手机", "携帯", "携帯電話", "전화", "휴대폰", "тел", "тел.", "телефон",
    }
)  # fmt: skip

# Labels before a fax number: a fax line is no number to call (cv-ctan's "Fax: +31-50-...").
FAX_LABELS = frozenset({"fax", "fax.", "telefax", "téléfax", "télécopie", "faks", "факс", "传真", "ファックス", "팩스"})

# Consumer mail providers (curated from the providers' own sign-up pages, common knowledge;
# no list downloaded). Only used to undo OCR confusions in the domain of an OCR'd address
# ("pawel@02.pl" -> "o2.pl"): a domain on this list is never changed, and an unknown one
# only when exactly one provider reads the same under the confusions.
MAIL_PROVIDERS = frozenset(
    """
    gmail.com googlemail.com outlook.com hotmail.com live.com msn.com yahoo.com ymail.com icloud.com me.com
    mac.com aol.com proton.me protonmail.com pm.me zoho.com fastmail.com hey.com tutanota.com tuta.io
    gmx.com mail.com
    hotmail.co.uk live.co.uk yahoo.co.uk btinternet.com sky.com virginmedia.com talktalk.net ntlworld.com
    blueyonder.co.uk outlook.ie yahoo.ie eircom.net
    comcast.net verizon.net att.net sbcglobal.net bellsouth.net cox.net
    gmx.de gmx.net gmx.at gmx.ch web.de t-online.de posteo.de mailbox.org freenet.de outlook.de hotmail.de
    yahoo.de arcor.de bluewin.ch hispeed.ch sunrise.ch a1.net chello.at
    orange.fr wanadoo.fr free.fr laposte.net sfr.fr neuf.fr bbox.fr outlook.fr hotmail.fr live.fr yahoo.fr
    telenet.be skynet.be proximus.be
    hotmail.es outlook.es yahoo.es telefonica.net movistar.es
    libero.it virgilio.it tiscali.it alice.it tim.it fastwebnet.it email.it outlook.it hotmail.it yahoo.it
    ziggo.nl kpnmail.nl planet.nl home.nl xs4all.nl telfort.nl hotmail.nl live.nl outlook.nl
    wp.pl o2.pl onet.pl onet.eu interia.pl poczta.fm op.pl tlen.pl gazeta.pl
    sapo.pt seznam.cz mail.ru yandex.ru yandex.com
    rambler.ru bk.ru inbox.ru list.ru yandex.com.tr
    outlook.com.br hotmail.com.br yahoo.com.br bol.com.br uol.com.br terra.com.br ig.com.br
    hotmail.com.mx outlook.com.mx yahoo.com.mx prodigy.net.mx hotmail.com.ar yahoo.com.ar
    qq.com foxmail.com 163.com 126.com yeah.net sina.com naver.com daum.net hanmail.net yahoo.co.jp
    rediffmail.com yahoo.co.in yahoo.com.au bigpond.com
    """.split()  # noqa: SIM905 (one provider list, grouped by country, easier to edit)
)


@dataclass(frozen=True, slots=True)
class Skill:
    canonical: str
    category: str
    strict: bool  # ambiguous outside a skills section (Go, R, Excel...)
    taxonomy_id: str = ""  # "esco:<concept id>" when ESCO has the skill, else "ats:<canonical>"


SKILLS_FILE = Path(__file__).with_name("skills.csv")


@functools.cache
def taxonomy_version() -> str:
    """The skills file's "# version: N" line: stored extractions record it (the extractor's
    version carries it), so a vocabulary change is visible in every value's provenance."""
    with SKILLS_FILE.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("# version:"):
                return line.split(":", 1)[1].strip()
    raise ValueError("skills.csv: no '# version:' line")


@functools.cache
def skills() -> dict[str, Skill]:
    """Every spelling (case-folded; canonical name and aliases) -> its skill."""
    out: dict[str, Skill] = {}
    for row in _data_rows(SKILLS_FILE):
        canonical, esco = row["canonical"].strip(), (row.get("esco") or "").strip()
        taxonomy_id = f"esco:{esco}" if esco else "ats:" + "-".join(canonical.casefold().split())
        skill = Skill(canonical, row["category"].strip(), row["strict"].strip() == "1", taxonomy_id)
        for spelling in [skill.canonical, *(row["aliases"] or "").split("|")]:
            key = " ".join(spelling.split()).casefold()
            if key:
                if key in out and out[key].canonical != skill.canonical:
                    raise ValueError(f"skills.csv: {spelling!r} names two skills")
                out[key] = skill
    return out


@functools.cache
def max_skill_words() -> int:
    return max(len(key.split()) for key in skills())
