from tests.extraction.corpus import main

raise SystemExit(main())
