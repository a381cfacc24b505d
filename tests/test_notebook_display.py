"""A record's figure shows as a picture in a notebook without ``%matplotlib inline``.

The figures are made without pyplot, so IPython knows no formatter for them; ``plot()``
registers one (PNG) when it runs inside IPython.
"""

import symdelay


def test_plot_displays_as_png_in_ipython():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        model = symdelay.build_model("erlang", L=2, mu=1, lam=1, D=1, theta=3)
        ax = symdelay.fluid(model, T=2).plot()
        data, _ = shell.display_formatter.format(ax)
        assert data["image/png"].startswith(b"\x89PNG")
        data, _ = shell.display_formatter.format(ax.figure)
        assert data["image/png"].startswith(b"\x89PNG")
    finally:
        InteractiveShell.clear_instance()
