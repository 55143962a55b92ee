"""The command line (``assay``); see :mod:`assay.cli.app`."""
