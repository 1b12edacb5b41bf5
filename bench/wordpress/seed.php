<?php
// Seeds the benchmark's WordPress: 120 published posts with distinct
// titles, and an admin and an editor whose screens show 100 posts per page
// and no first-run popups. Run once by scripts/wordpress, after the install.
$_SERVER['HTTP_HOST'] = '127.0.0.1';
require '/usr/share/wordpress/wp-load.php';

// The install's sample content goes: the suite counts posts.
foreach (get_posts(['post_type' => ['post', 'page'], 'post_status' => 'any', 'numberposts' => -1]) as $p) {
    wp_delete_post($p->ID, true);
}
foreach (get_comments() as $c) {
    wp_delete_comment($c->comment_ID, true);
}

// The titles are bench/wordpress/posts.txt, one per line, which the Go
// side reads too; the dates run a day apart from 2026-01-05.
$titles = file(__DIR__ . '/posts.txt', FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES);
if (count($titles) !== 120) {
    fwrite(STDERR, "seed: posts.txt has " . count($titles) . " titles, want 120\n");
    exit(1);
}
$base = strtotime('2026-01-05 09:00:00');
foreach ($titles as $i => $title) {
    $date = date('Y-m-d H:i:s', $base + $i * 86400);
    $id = wp_insert_post([
        'post_title' => $title,
        'post_content' => "<!-- wp:paragraph -->\n<p>" . esc_html($title) . ": notes kept for the benchmark.</p>\n<!-- /wp:paragraph -->",
        'post_status' => 'publish',
        'post_author' => 1,
        'post_date' => $date,
        'post_date_gmt' => $date,
    ], true);
    if (is_wp_error($id)) {
        fwrite(STDERR, 'seed: ' . $id->get_error_message() . "\n");
        exit(1);
    }
}

update_option('show_avatars', 0);        // Gravatar never loads offline
update_option('blogdescription', 'A WordPress for benchmarks');
// A second user, an editor: a playbook learned as admin must replay as
// anyone else who may do the task.
$editor = wp_insert_user([
    'user_login' => 'editor',
    'user_pass' => 'rote-editor-password',
    'user_email' => 'editor@example.com',
    'display_name' => 'Edith Editor',
    'role' => 'editor',
]);
if (is_wp_error($editor)) {
    fwrite(STDERR, 'seed: ' . $editor->get_error_message() . "\n");
    exit(1);
}
foreach ([1, $editor] as $user) {
    update_user_meta($user, 'edit_post_per_page', 100);
    update_user_meta($user, 'show_welcome_panel', 0);
    update_user_meta($user, 'wp_persisted_preferences', [
        'core/edit-post' => ['welcomeGuide' => false, 'fullscreenMode' => false],
        '_modified' => gmdate('c'),
    ]);
}
echo "seed: 120 posts, admin and editor\n";
