// Sanitizer builds only (ACLGI_SANITIZE): what LeakSanitizer must not report in a process that
// starts Qt. LeakSanitizer asks every executable for its default suppressions through this weak
// hook (compiler-rt's lsan_common.cpp), so the window, the command-line tools and the GUI tests
// carry them wherever they run: under ctest, under scripts/run-tests.sh or by hand.
//
// Each entry is memory a library keeps until exit on purpose, never ours:
//  - libfontconfig.so: the font configuration and patterns fontconfig caches for the process
//    (Qt's font database asks for them, in the window and in the reports that render text);
//  - libqoffscreen.so: the offscreen platform plugin's screen and integration, which
//    QGuiApplication does not delete at exit;
//  - QPropertyAnimation::QPropertyAnimation: a QLineEdit's clear button fades in and out with an
//    animation that deletes itself from the event loop; a test (or a window closed mid-fade) that
//    ends before the fade does leaves it running. The code here makes no QPropertyAnimation.
// A frame's function or module name is matched anywhere in the stack; with fast unwinding (the
// default) the stack of an allocation inside these libraries is often only the allocator and the
// library's own frame, which is what the module names match. Indirect leaks reachable from a
// suppressed block are not reported either.
// print_suppressions=0: the "Suppressions used" table would otherwise be written at every exit,
// into the report files of scripts/run-tests.sh too, where any file counts as a report.
extern "C" const char* __lsan_default_options()
{
    return "print_suppressions=0";
}

extern "C" const char* __lsan_default_suppressions()
{
    return "leak:libfontconfig.so\n"
           "leak:libqoffscreen.so\n"
           "leak:QPropertyAnimation::QPropertyAnimation\n";
}
