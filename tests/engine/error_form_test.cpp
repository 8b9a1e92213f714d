// engine::textNamesPlace / errorNamesPlace: the form of every error (docs/DEVELOPER.md, "Errors").
// What it accepts is what the readers produce; what it refuses are the forms issue 19 found.
#include "engine/core/error_form.h"
#include "engine/snapshot/memory_snapshot.h"

#include <gtest/gtest.h>

using engine::errorNamesPlace;
using engine::textNamesPlace;

TEST(ErrorForm, AcceptsEveryPlaceTheReadersName)
{
    for (const char* text : {
             "m.py:12:5: 'mm' is not defined before it is used",
             "trace.log:3: not a TORCH_TRACE log",
             "s.pickle: offset 1834: truncated BINUNICODE (needs 12 bytes, 3 left)",
             "s.pickle: $.segments[0]: a segment is a dict with 'total_size' and 'blocks', not a list",
             "s.pickle: $.device_traces[0][2]: a trace entry is a dict with 'action', not an int",
             "s.pickle [py_code]:4:1: unexpected indent",
             "s.pickle [signature]: empty",
             "s.pickle: check permissions: PermissionError: Permissions must be 600 (the file has mode 644)",
             "s.pickle: table runs row 3: bad",
             "s.pickle: empty input: no pickle",
             "s.pickle: cannot read 's.pickle': it is a directory",
             "s.pickle: not a memory snapshot: the top-level dict has no 'segments' list",
         }) {
        EXPECT_TRUE(
            textNamesPlace(text, "s.pickle") || textNamesPlace(text, "m.py") || textNamesPlace(text, "trace.log"))
            << text;
    }
    std::string why;
    EXPECT_TRUE(textNamesPlace("dir/graph_1.py:3:1: bad", "dir", &why)) << why;
}

TEST(ErrorForm, RefusesNoFileNoPlaceAndEmptyReasons)
{
    std::string why;
    EXPECT_FALSE(textNamesPlace("PermissionError: Permissions must be 600", "c", &why));
    EXPECT_NE(why.find("does not start with the file name"), std::string::npos) << why;
    EXPECT_FALSE(textNamesPlace("c: its py_code does not read: ", "c", &why));
    EXPECT_NE(why.find("no place"), std::string::npos) << why;
    EXPECT_FALSE(textNamesPlace("c: a segment is a dict, not a list", "c", &why));
    EXPECT_FALSE(textNamesPlace("c", "c", &why));
    EXPECT_FALSE(textNamesPlace("c:12 bad", "c", &why));
    EXPECT_FALSE(textNamesPlace("c [py_code: bad", "c", &why));
    EXPECT_FALSE(textNamesPlace("x: offset 3: bad", "", &why));
    EXPECT_FALSE(errorNamesPlace(engine::makeError(engine::ErrorCode::ParseError, "bad", "other.json: $.a"), "c.json"));
    EXPECT_TRUE(errorNamesPlace(engine::makeError(engine::ErrorCode::ParseError, "bad", "c.json: $.a"), "c.json"));
}

// The reproducer: 'segments' holding a list of lists (here 1000 deep) is an error at its
// pickle path, not an empty snapshot.
TEST(ErrorForm, SnapshotSegmentThatIsAListIsAnErrorAtItsPath)
{
    const int n = 1000;
    std::string bytes
        = std::string("\x80\x04}", 3) + "\x8c\x08segments" + std::string(n, ']') + std::string(n - 1, 'a') + "s.";
    auto r = engine::snapshot::readSnapshot(bytes, "deep.pickle");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().toString(),
        "deep.pickle: $.segments[0]: a segment is a dict with 'total_size' and 'blocks', not a list");
    EXPECT_TRUE(errorNamesPlace(r.error(), "deep.pickle"));
}

// A warning met several times is kept once, at the offset of the first, and says how often.
TEST(ErrorForm, SnapshotWarningsAreCountedAtTheirFirstPlace)
{
    // pickle.dumps({'segments': [{'total_size': 24, 'address': 0, 'blocks': [three blocks of state
    // 'odd']}]}, protocol=2)
    const std::string bytes(
        "\x80\x02\x7d\x71\x00\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d\x71\x02\x7d\x71\x03\x28"
        "\x58\x0a\x00\x00\x00\x74\x6f\x74\x61\x6c\x5f\x73\x69\x7a\x65\x71\x04\x4b\x18\x58\x07\x00\x00\x00\x61\x64\x64"
        "\x72\x65\x73\x73\x71\x05\x4b\x00\x58\x06\x00\x00\x00\x62\x6c\x6f\x63\x6b\x73\x71\x06\x5d\x71\x07\x28\x7d\x71"
        "\x08\x28\x58\x04\x00\x00\x00\x73\x69\x7a\x65\x71\x09\x4b\x08\x58\x05\x00\x00\x00\x73\x74\x61\x74\x65\x71\x0a"
        "\x58\x03\x00\x00\x00\x6f\x64\x64\x71\x0b\x75\x7d\x71\x0c\x28\x68\x09\x4b\x08\x68\x0a\x68\x0b\x75\x7d\x71\x0d"
        "\x28\x68\x09\x4b\x08\x68\x0a\x68\x0b\x75\x65\x75\x61\x73\x2e",
        150);
    auto r = engine::snapshot::readSnapshot(bytes, "odd.pickle");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_EQ(r->warnings[0].rfind("offset ", 0), 0u) << r->warnings[0];
    EXPECT_NE(r->warnings[0].find("a block's state odd is not known; read as inactive (3 times; the first here)"),
        std::string::npos)
        << r->warnings[0];
}
