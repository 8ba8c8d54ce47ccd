/*
 * MakeSparkVectors: conformance vectors for the bloomfilter extension's
 * 'spark' layout, made by Spark's own org.apache.spark.util.sketch classes
 * (see README.md beside this file for the Spark commit and how to rerun).
 *
 * Writes, tab-separated, one record a line, to standard output:
 *   filter  id  version  n  fpp  seed  numBits  k  hex
 *       a filter made as BloomFilter.create(version, n,
 *       optimalNumOfBits(n, fpp), seed) (create(n, fpp) is that with
 *       version 2 and seed 0), after its keys were put; hex is writeTo's
 *       bytes; numBits is optimalNumOfBits(n, fpp) (before BitArray
 *       rounds it up to whole words) and k the filter's hash count.
 *   key     id  kind  hex
 *       a key put into filter id: kind long (hex: the 8 bytes of the
 *       value, big-endian), string (hex: its UTF-8 bytes, put with
 *       putString) or binary (hex: its bytes, put with putBinary).
 *   probe   id  kind  hex  answer
 *       a key not put, and what mightContainLong/String/Binary answered
 *       (t or f).
 * Keys are deterministic (java.util.Random with a fixed seed).
 */
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.spark.util.sketch.BloomFilter;

public class MakeSparkVectors {
	static final StringBuilder out = new StringBuilder();

	static String hex(byte[] b) {
		StringBuilder s = new StringBuilder(b.length * 2);
		for (byte x : b)
			s.append(String.format("%02x", x & 0xff));
		return s.toString();
	}

	static byte[] longBytes(long v) {
		return ByteBuffer.allocate(8).putLong(v).array();
	}

	/* A key: its kind and its bytes. */
	record Key(String kind, byte[] bytes, long value, String text) {
		static Key ofLong(long v) { return new Key("long", longBytes(v), v, null); }
		static Key ofString(String s) { return new Key("string", s.getBytes(StandardCharsets.UTF_8), 0, s); }
		static Key ofBinary(byte[] b) { return new Key("binary", b, 0, null); }

		void put(BloomFilter f) {
			switch (kind) {
				case "long" -> f.putLong(value);
				case "string" -> f.putString(text);
				default -> f.putBinary(bytes);
			}
		}

		boolean probe(BloomFilter f) {
			return switch (kind) {
				case "long" -> f.mightContainLong(value);
				case "string" -> f.mightContainString(text);
				default -> f.mightContainBinary(bytes);
			};
		}
	}

	static final String[] WORDS = {"", " ", "a", "a ", "ab", "abc", "abcd", "abcde", "é", "日本語",
		"naïve café", "😀", "x\ty", "Spark", "PostgreSQL", "trailing  ", "ÿ"};

	static List<Key> keys(String kind, int count, Random r) {
		List<Key> ks = new ArrayList<>();
		switch (kind) {
			case "long" -> {
				long[] fixed = {0, 1, -1, 42, -42, Long.MAX_VALUE, Long.MIN_VALUE,
					Integer.MAX_VALUE, Integer.MIN_VALUE, Short.MAX_VALUE, Short.MIN_VALUE,
					4294967296L, -4294967297L};
				for (long v : fixed)
					ks.add(Key.ofLong(v));
				while (ks.size() < count)
					ks.add(Key.ofLong(ks.size() % 2 == 0 ? r.nextLong() : r.nextInt(100000) - 50000));
			}
			case "string" -> {
				for (String w : WORDS)
					ks.add(Key.ofString(w));
				while (ks.size() < count) {
					StringBuilder s = new StringBuilder();
					int len = r.nextInt(20);
					for (int i = 0; i < len; i++) {
						int c = r.nextInt(4) == 0 ? 0xa0 + r.nextInt(0x700) : 0x20 + r.nextInt(0x5f);
						s.appendCodePoint(c);
					}
					ks.add(Key.ofString(s.toString() + "#" + ks.size()));
				}
			}
			default -> {
				ks.add(Key.ofBinary(new byte[0]));
				ks.add(Key.ofBinary(new byte[] {0}));
				ks.add(Key.ofBinary(new byte[] {(byte) 0xff}));
				ks.add(Key.ofBinary(new byte[] {(byte) 0x80, 0x7f, (byte) 0xfe}));
				while (ks.size() < count) {
					byte[] b = new byte[r.nextInt(24)];
					r.nextBytes(b);
					ks.add(Key.ofBinary(b));
				}
			}
		}
		return ks;
	}

	static int nextId = 1;

	static void make(BloomFilter.Version version, long n, double fpp, int seed,
					 String[] kinds, int count, Random r) throws IOException {
		int id = nextId++;
		long numBits = BloomFilter.optimalNumOfBits(n, fpp);
		BloomFilter f = BloomFilter.create(version, n, numBits, seed);
		List<Key> put = new ArrayList<>();
		for (String kind : kinds)
			put.addAll(keys(kind, count, r));
		for (Key k : put)
			k.put(f);
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		f.writeTo(bytes);
		byte[] b = bytes.toByteArray();
		int k = ByteBuffer.wrap(b, 4, 4).getInt();
		out.append(String.join("\t", "filter", Integer.toString(id),
			Integer.toString(version == BloomFilter.Version.V1 ? 1 : 2), Long.toString(n),
			Double.toString(fpp), Integer.toString(seed), Long.toString(numBits),
			Integer.toString(k), hex(b))).append('\n');
		for (Key key : put)
			out.append(String.join("\t", "key", Integer.toString(id), key.kind(), hex(key.bytes()))).append('\n');
		/* non-members: keys of the same kinds from another stream */
		Random other = new Random(1000 + id);
		for (String kind : kinds)
			for (Key key : keys(kind, 60, other)) {
				boolean member = false;
				for (Key p : put)
					if (p.kind().equals(key.kind()) && java.util.Arrays.equals(p.bytes(), key.bytes()))
						member = true;
				if (member)
					continue;
				out.append(String.join("\t", "probe", Integer.toString(id), key.kind(),
					hex(key.bytes()), key.probe(f) ? "t" : "f")).append('\n');
			}
		/* the reader agrees with the writer */
		BloomFilter back = BloomFilter.readFrom(b);
		if (!back.equals(f))
			throw new IllegalStateException("readFrom(writeTo(f)) differs from f");
	}

	public static void main(String[] args) throws IOException {
		Random r = new Random(35);
		String[][] kindSets = {{"long"}, {"string"}, {"binary"}};
		long[] ns = {10, 100, 1000};
		double[] fpps = {0.03, 0.01, 0.2};
		for (BloomFilter.Version v : BloomFilter.Version.values()) {
			for (String[] kinds : kindSets)
				for (int i = 0; i < ns.length; i++)
					make(v, ns[i], fpps[i], 0, kinds, (int) Math.min(ns[i], 200), r);
			/* odd sizes: a word count that is no power of two, k = 1, a large k */
			make(v, 3, 0.5, 0, new String[] {"long"}, 3, r);
			make(v, 50, 0.000001, 0, new String[] {"string"}, 50, r);
			make(v, 77, 0.07, 0, new String[] {"binary", "long"}, 30, r);
		}
		/* V2's seed */
		make(BloomFilter.Version.V2, 100, 0.01, 12345, new String[] {"long"}, 100, r);
		make(BloomFilter.Version.V2, 100, 0.01, -7, new String[] {"string"}, 100, r);
		System.out.print(out);
	}
}
