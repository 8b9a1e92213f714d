#pragma once
/// The report document (engine/report/report_doc.h) as PDF, printed in process with Qt: the HTML view
/// (engine/report/report_html.h) laid out by QTextDocument on A4 pages through QPdfWriter, every
/// inline <svg> drawn as vector graphics by QtSvg (scaled down to fit a page when larger), and a
/// footer with the title and the page number. No browser, no subprocess, nothing fetched.
#include "engine/core/result.h"

#include <string>

namespace gui::report {

/// The PDF file's bytes. Error when `reportJsonText` is not a report document.
///
/// Needs QtGui (fonts, painting): with a QGuiApplication or QApplication running, call it on that
/// application's thread; with none (the headless `report` command), it creates an offscreen
/// QGuiApplication for the duration of the call, so it must then be called from the main thread.
engine::Result<std::string> reportPdf(const std::string& reportJsonText);

} // namespace gui::report
