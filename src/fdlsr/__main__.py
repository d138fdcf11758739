from ._experiments.cli import main

raise SystemExit(main())
