/*
 * lsan.c - linked into every suite under SANITIZE=1: LeakSanitizer is told
 * to pass over Criterion's own leak, and only that.
 *
 * Criterion 2.4's runner leaks a 48-byte timeout request (BoxFort's
 * bxfi_push_timeout, for a test with a .timeout) now and then, reported
 * when the runner exits. libcriterion is stripped, so that function has no
 * name a suppression could give; only the module has. But a test's own
 * leak has libcriterion in its stack too (criterion_internal_test_main
 * calls the test), and LeakSanitizer suppresses a leak when any frame
 * matches: a suppressions file naming the module (LSAN_OPTIONS=suppressions=)
 * would hide every leak of our code in the tests as well. So the module is
 * suppressed in the one process that runs no test, the runner: each test
 * runs in a process of its own, where criterion_current_test is set. Our
 * code that runs in the runner (ReportHook, ParameterizedTestParameters) is
 * the one thing the suppression also covers there.
 *
 * LeakSanitizer asks for the suppressions when it has leaks to report, at
 * exit: the test process has set criterion_current_test by then.
 */
#include <criterion/criterion.h>

__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return criterion_current_test ? "" : "leak:libcriterion.so\n";
}
