"""The self-contained HTML report (``animsmith report``): see docs/report.md.

* :mod:`animsmith.report.collect` runs the lint checks and, from the SAME
  judged pose grids, extracts the compact numeric data the page draws;
* :mod:`animsmith.report.html` inlines that data, the CSS and the JavaScript
  (``assets/``) into one HTML page that needs no network.
"""
