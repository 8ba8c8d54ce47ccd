/* bloomfilter--1.0--1.1.sql: update script from 1.0 to 1.1.
 * Every SQL change after 1.0 goes here (or into a later update script);
 * sql/bloomfilter--1.0.sql never changes again.  CREATE EXTENSION at 1.1
 * runs 1.0's script and then this one, so a fresh install and an update
 * give the same objects. */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit
