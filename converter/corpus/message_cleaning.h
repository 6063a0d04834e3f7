// Cleaning rules for software text pairs (gettext catalogs and other interface or help text).
// Each rule is a pure function on one side or one pair, so each is unit-tested on its own
// (tests/corpus/message_cleaning_test.cc) and the corpus report counts what each removed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmt::corpus {

// Markup: a tag is "<name ...>", "</name>" or "<name/>" with an ASCII-letter name. Block tags
// (p, br, div, li, td, h1, para, title, ...) become a space, every other tag is removed without a
// space so "<b>Tool</b>bars" stays one word. The entities &amp; &lt; &gt; &quot; &apos; &nbsp;
// and numeric ones (&#38; &#x26;) are decoded after the tags are gone, so an escaped "&lt;b&gt;"
// is text, not a tag.
std::string strip_markup(std::string_view s);

// Keyboard accelerators: "_File", "Re_do", "~Open", "&Save" lose the marker when the string has
// exactly one marker of that kind before a letter or digit (several markers are more likely
// identifiers such as "file_name_max"); "&" is never a marker when it starts an entity, and "&&"
// (an escaped ampersand) is kept. Bracketed East-Asian style accelerators "(_F)" "(&F)" are removed
// with the space before them.
std::string strip_accelerators(std::string_view s);

// Runs of whitespace (any Unicode space, newlines included) become one space; leading and trailing
// whitespace is removed.
std::string collapse_whitespace(std::string_view s);

// Placeholders that must survive translation unchanged: printf conversions ("%s", "%d",
// "%-10.3lf", "%1$s", "%%" excluded), Qt/LibreOffice numbered ones ("%1"), named ones
// ("%PRODUCTNAME", "%(name)s", "$VAR", "${VAR}"), braces ("{0}", "{name}", Fluent "{ $var }").
// Returned sorted, so two sides can be compared as multisets.
std::vector<std::string> placeholders(std::string_view s);

// Language check on words: the number of English and of Spanish function words in s
// (closed lists of frequent words that the other language lacks, e.g. "the", "of", "is" against
// "el", "de", "es"). A Spanish side with more English than Spanish function words is left
// untranslated, at least in part.
struct FunctionWords {
  int english = 0;
  int spanish = 0;
};
FunctionWords count_function_words(std::string_view s);

// Number of words (runs of letters or digits, ASCII or not) in s.
int count_words(std::string_view s);

// Those words, lower-cased (ASCII and Latin-1), in order.
std::vector<std::string> lower_words(std::string_view s);

// ASCII and Latin-1 letters in upper case (a-z, à-þ except ÷; ß and ÿ stay); other code points
// unchanged. Enough for English and Spanish text, used for the case-augmented training pairs.
std::string to_upper_latin(std::string_view s);

// The key under which near duplicates collide: letters and digits only, lower-cased (ASCII and
// Latin-1), so "Save file." / "Save File" / "save  file" are one sentence.
std::string near_duplicate_key(std::string_view s);

}  // namespace pmt::corpus
