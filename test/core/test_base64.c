/*
 * test_base64.c
 *		Core unit tests: the text codec (bf_base64.c).
 *
 * Part of test_core (see test_core.c and test_core.h).
 */
#include "test_core.h"

/* ---- 6. base64 ---- */

static bool
b64_decodes_to(const char *text, const char *want)
{
	size_t		tlen = strlen(text);
	uint8_t    *out = xmalloc(bf_base64_decoded_max(tlen));
	long long	n = bf_base64_decode(text, tlen, out);
	bool		ok = n == (long long) strlen(want) &&
		memcmp(out, want, strlen(want)) == 0;

	free(out);
	return ok;
}

static bool
b64_rejects(const char *text, size_t tlen)
{
	char	   *src = xmalloc(tlen);
	uint8_t    *out = xmalloc(bf_base64_decoded_max(tlen));
	long long	n;

	memcpy(src, text, tlen);
	n = bf_base64_decode(src, tlen, out);
	free(src);
	free(out);
	return n == -1;
}

void
test_base64(void)
{
	static const char *const rfc[][2] = {
		{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
	};
	static const char *const bad[] = {
		"Z", "Zg", "Zg=", "Zm9vY", "Zm9vYmF",	/* length not a multiple of 4 */
		"Zm9v!A==", "Zm-v", "Zm_v", "Zm9\x7f", "Zm\xc3\xa9",	/* alphabet */
		"Zm 9", "Zm9v\nYmE", "\tZm9", "Zm9v YmE=", "Zm9v\r\nYm",	/* white space */
		"Zg==Zm9v", "Zm8=Zm9v", "Z=9v", "=m9v", "Zm=v",	/* '=' in the middle */
		"====", "A===", "AA=A", "Zg=A",	/* padding in the wrong place */
		"QR==", "Zh==", "Zm9=", "Zm+=",	/* non-canonical trailing bits */
	};
	rng			r = {64};

	for (size_t i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++)
	{
		size_t		n = strlen(rfc[i][0]);
		size_t		elen = bf_base64_encoded_len(n);
		char	   *enc = xmalloc(elen);

		bf_base64_encode((const uint8_t *) rfc[i][0], n, enc);
		check(elen == strlen(rfc[i][1]) && memcmp(enc, rfc[i][1], elen) == 0,
			  "base64: RFC 4648 encode", "\"%s\" -> \"%.*s\", want \"%s\"",
			  rfc[i][0], (int) elen, enc, rfc[i][1]);
		check(b64_decodes_to(rfc[i][1], rfc[i][0]), "base64: RFC 4648 decode",
			  "\"%s\" did not decode to \"%s\"", rfc[i][1], rfc[i][0]);
		free(enc);
	}
	check(b64_decodes_to("QQ==", "A"), "base64: canonical QQ==", "rejected");
	check(b64_decodes_to("+/+/", "\xfb\xff\xbf"), "base64: + and /", "rejected");

	/* Round trips of random bytes, every length up to 300. */
	for (size_t n = 0; n <= 300; n++)
	{
		uint8_t    *src = xmalloc(n);
		size_t		elen = bf_base64_encoded_len(n);
		char	   *enc = xmalloc(elen);
		uint8_t    *dec;
		long long	got;
		bool		alphabet_ok = true;

		rng_fill(&r, src, n);
		check(elen == 4 * ((n + 2) / 3), "base64: encoded length",
			  "%zu bytes -> %zu characters", n, elen);
		bf_base64_encode(src, n, enc);
		for (size_t i = 0; i < elen; i++)
			if (!(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
						 enc[i]) && enc[i] != '\0') &&
				!(enc[i] == '=' && i >= elen - 2))
				alphabet_ok = false;
		check(alphabet_ok, "base64: output alphabet", "%zu bytes: \"%.*s\"",
			  n, (int) elen, enc);
		check(bf_base64_decoded_max(elen) >= n, "base64: decoded_max",
			  "%zu < %zu", bf_base64_decoded_max(elen), n);
		dec = xmalloc(bf_base64_decoded_max(elen));
		got = bf_base64_decode(enc, elen, dec);
		check(got == (long long) n && memcmp(dec, src, n) == 0,
			  "base64: round trip", "%zu bytes: decoded %lld", n, got);

		/* A non-alphabet character anywhere makes it invalid. */
		if (elen > 0)
		{
			static const char junk[] = " \n\t!-_.*\0\x80";
			size_t		pos = (size_t) rng_below(&r, elen);
			char		save = enc[pos];

			enc[pos] = junk[rng_below(&r, sizeof(junk) - 1)];
			check(bf_base64_decode(enc, elen, dec) == -1, "base64: rejects junk",
				  "%zu bytes, junk 0x%02x at %zu accepted", n,
				  (unsigned char) enc[pos], pos);
			enc[pos] = save;
		}
		/* Dropping the last character makes the length wrong. */
		if (elen > 0)
			check(bf_base64_decode(enc, elen - 1, dec) == -1,
				  "base64: rejects short", "%zu bytes", n);
		free(src);
		free(enc);
		free(dec);
	}

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(b64_rejects(bad[i], strlen(bad[i])), "base64: rejects",
			  "\"%s\" accepted", bad[i]);
	/* An embedded NUL is just another bad character. */
	check(b64_rejects("Zm\0v", 4), "base64: rejects NUL", "accepted");

	/*
	 * Every non-canonical final group is rejected: of the 16 (or 4)
	 * spellings of the last bits, only the one with zero stray bits decodes.
	 */
	{
		const char *alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		int			accepted1 = 0,
					accepted2 = 0;

		for (int c = 0; c < 64; c++)
		{
			char		t1[4] = {'Q', alpha[c], '=', '='};
			char		t2[4] = {'Z', 'm', alpha[c], '='};

			accepted1 += !b64_rejects(t1, 4);
			accepted2 += !b64_rejects(t2, 4);
		}
		check(accepted1 == 4 && accepted2 == 16, "base64: canonical final group",
			  "%d of 64 xx== and %d of 64 xxx= forms accepted, want 4 and 16",
			  accepted1, accepted2);
	}

	/* A sealed filter survives the text form and validates after it. */
	{
		tfilter		f = sealed_filter(BF_LAYOUT_BLOCKED, 4096, 100);
		size_t		elen = bf_base64_encoded_len(f.len);
		char	   *enc = xmalloc(elen);
		uint8_t    *dec = xmalloc(bf_base64_decoded_max(elen));
		long long	got;

		bf_base64_encode(f.buf, f.len, enc);
		got = bf_base64_decode(enc, elen, dec);
		check(got == (long long) f.len && memcmp(dec, f.buf, f.len) == 0 &&
			  bf_validate(dec, (size_t) got) == BF_OK,
			  "base64: filter round trip", "decoded %lld bytes", got);
		free(enc);
		free(dec);
		tf_free(&f);
	}
}
