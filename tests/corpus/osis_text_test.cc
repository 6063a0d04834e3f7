// OSIS stripping on crafted markup in the shapes the three SWORD modules use.
#include <doctest/doctest.h>

#include "corpus/osis_text.h"

using pmt::corpus::has_subscription;
using pmt::corpus::osis_to_text;

TEST_CASE("word markup is removed and Strong's numbers never leak") {
  CHECK(osis_to_text(R"(<w lemma="strong:H7225">In the beginning</w>, <w lemma="strong:H0430">God</w>)"
                     R"( <w lemma="strong:H1254" morph="x">created</w>.)") ==
        "In the beginning, God created.");
  // Word-level tags leave nothing, so a possessive stays attached.
  CHECK(osis_to_text(R"(<w lemma="strong:H3068">Yahweh</w>’s <divineName><w>LORD</w></divineName>)"
                     R"(<transChange type="added">is</transChange>)") == "Yahweh’s LORDis");
}

TEST_CASE("notes are removed and leave a space, except before closing punctuation") {
  CHECK(osis_to_text(R"(God<note placement="foot"><reference>1:1 </reference>Or, <rdg>Elohim</rdg></note>created)") ==
        "God created");
  CHECK(osis_to_text(R"(it is incomprehensible<note placement="foot">or, wonderful</note>?” Then)") ==
        "it is incomprehensible?” Then");
  CHECK(osis_to_text(R"(the “sea”<note type="crossReference">Gen 1:2</note>’s edge)") == "the “sea”’s edge");
  // A space that was in the text stays.
  CHECK(osis_to_text(R"(contempt.<note>x</note> Among)") == "contempt. Among");
}

TEST_CASE("titles and speaker labels are dropped, Psalm superscriptions kept") {
  CHECK(osis_to_text(R"(<title type="section">The Creation</title><w>In</w> the beginning)") ==
        "In the beginning");
  CHECK(osis_to_text(R"(<div type="x-milestone" subType="x-preverse" sID="pv1"/><title canonical="true" )"
                     R"(type="psalm">A Psalm by <w>David</w>.<note>heading</note></title> <lg sID="g1"/>)"
                     R"(<l level="1" sID="g2"/>Yahweh, how my adversaries have increased!<l eID="g2"/>)"
                     R"(<l level="2" sID="g3"/>Many rise up.<l eID="g3"/>)") ==
        "A Psalm by David. Yahweh, how my adversaries have increased! Many rise up.");
  CHECK(osis_to_text(R"(<speaker>Beloved</speaker> <lg sID="a"/><l sID="b"/>Let him kiss me;<l eID="b"/>)") ==
        "Let him kiss me;");
  CHECK(osis_to_text(R"(<speaker> <w>Friends</w></speaker>Eat, friends!)") == "Eat, friends!");
  // KJV subscription after the chapter end, and an untyped acrostic title: both dropped.
  CHECK(osis_to_text(R"(Amen. <chapter eID="Rom.16"/> <title>Written to the Romans <transChange>and sent</transChange></title>)") ==
        "Amen.");
  CHECK(osis_to_text(R"(<title><foreign>ב BETH.</foreign></title> Wherewithal)") == "Wherewithal");
}

TEST_CASE("poetry line and paragraph tags separate words") {
  CHECK(osis_to_text(R"(first line,<l eID="a"/><l sID="b"/>second line<lb type="x-p"/>third)") ==
        "first line, second line third");
}

TEST_CASE("adjacent word elements are separated (RV1909's glued words)") {
  CHECK(osis_to_text(R"(<transChange type="added">enviada</transChange><w lemma="strong:G1223">por</w>)"
                     R"(<transChange type="added">medio de</transChange><w>Febe</w>, diaconisa)") ==
        "enviada por medio de Febe, diaconisa");
  // Text between the elements is kept as is.
  CHECK(osis_to_text(R"(<w>Dios</w>: <w>Sea</w>)") == "Dios: Sea");
}

TEST_CASE("everything after the end-of-book marker is cut") {
  CHECK(osis_to_text(R"(<w>be</w> with all the saints. Amen. <chapter eID="Rev.22"/><div eID="p" type="x-p"/> )"
                     R"(<div canonical="true" eID="gen1" osisID="Rev" type="book"/> <div sID="g" type="glossary"/>)"
                     R"(<title level="1" type="main">Glossary</title> Abba: Father.)") ==
        "be with all the saints. Amen.");
}

TEST_CASE("entities, USFM leftovers, pilcrows and whitespace") {
  CHECK(osis_to_text("Tom &amp; Jerry &lt;3 &quot;hi&quot;") == "Tom & Jerry <3 \"hi\"");
  CHECK(osis_to_text(R"(by my name \nd <w>JEHOVAH</w></divineName> was I)") == "by my name JEHOVAH was I");
  CHECK(osis_to_text(R"(the <divineName>LORD\+nd*</divineName> said)") == "the LORD said");
  CHECK(osis_to_text("¶ And God said") == "And God said");
  CHECK(osis_to_text("  a\n\tb   c  ") == "a b c");
  CHECK(osis_to_text("walk’</q> ?” said") == "walk’?” said");
  CHECK(osis_to_text("").empty());
  CHECK(osis_to_text(R"(<div type="x-p" sID="1"/>)").empty());
}

TEST_CASE("subscriptions are recognised after the chapter end only") {
  CHECK(has_subscription(R"(Amen. <chapter eID="Rom.16"/> <title>Written to the Romans</title>)"));
  CHECK_FALSE(has_subscription(R"(<title>Section</title> Amen. <chapter eID="Rom.16"/>)"));
  CHECK_FALSE(has_subscription("Amen."));
}
