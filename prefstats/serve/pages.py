"""The explorer's pages: templates filled on the server, a little plain JavaScript that
calls the JSON API, and Plotly's script as the plotly package ships it (no CDN)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

HERE = Path(__file__).parent
#: The pages, by path: (template, title in the menu).
PAGES = {"/": ("hand.html", "My hand"), "/deal": ("deal.html", "My deal"),
         "/game": ("game.html", "My game"), "/charts": ("charts.html", "Charts"),
         "/compare": ("compare.html", "Compare")}


def plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def mount(app: FastAPI) -> None:
    """Add the pages and their static files to ``app``."""
    templates = Jinja2Templates(directory=HERE / "templates")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.get("/static-lib/plotly.min.js", include_in_schema=False)
    def plotly_script() -> FileResponse:
        return FileResponse(plotly_js(), media_type="text/javascript")

    def page(template: str, title: str):
        def show(request: Request) -> HTMLResponse:
            from prefstats import __version__

            return templates.TemplateResponse(request, template, {
                "title": title, "pages": PAGES, "version": __version__, "root": "/",
                "tables": request.app.state.guides.tables()})
        return show

    @app.get("/games/{key}/{name}", include_in_schema=False)
    def game_page(key: str, name: str, request: Request) -> FileResponse:
        """A file of an analysed game: its page, training page, charts, tables."""
        from prefstats.serve.games import game_file

        return FileResponse(game_file(request.app.state.data / "games", key, name))

    @app.get("/compare/{key}/{name}", include_in_schema=False)
    def article_page(key: str, name: str, request: Request) -> FileResponse:
        """A file of a comparison's article: its page, charts, tables."""
        from prefstats.serve.compare import article_file

        return FileResponse(article_file(request.app.state.data / "compare", key, name))

    @app.get("/sample", include_in_schema=False)
    def sample(request: Request) -> RedirectResponse:
        """My hand with a hand of a chart's cell (the charts' links)."""
        from prefstats.serve.api import sample as find

        found = find(request, request.query_params.get("table", ""),
                     request.query_params.get("chart", ""))
        return RedirectResponse("/?" + urlencode({k: v for k, v in found.items()
                                                  if v is not None}))

    for path, (template, title) in PAGES.items():
        app.add_api_route(path, page(template, title), methods=["GET"],
                          response_class=HTMLResponse, include_in_schema=False)
